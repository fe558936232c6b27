import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

const CUSTOM = '/admin/v1/text/message/verifyemail/{language}' as const;
const DEFAULT = '/admin/v1/text/default/message/verifyemail/{language}' as const;
const lang = (language: string) => ({ params: { path: { language } } });

export function verifyEmailTextScenarios(h: () => Harness) {
  it('verify-email text: set, read, reset through the client', async () => {
    const { admin } = h();
    const put = await admin.PUT(CUSTOM, { ...lang('en'), body: { title: 'Hi', text: 'Code {{.Code}}' } });
    expect(put.response.status).toBe(200);
    expect(put.data?.details.sequence).toMatch(/^\d+$/);

    const get = await admin.GET(CUSTOM, lang('en'));
    expect(get.data?.customText).toMatchObject({ title: 'Hi', isDefault: false });

    const def = await admin.GET(DEFAULT, lang('de'));
    expect(def.data?.customText.isDefault).toBe(true);

    expect((await admin.DELETE(CUSTOM, lang('en'))).response.status).toBe(200);
    const again = await admin.DELETE(CUSTOM, lang('en'));
    expect(again.response.status).toBe(404);
    expect(again.error?.code).toBe(5);

    expect((await admin.GET('/admin/v1/languages')).data?.languages).toContain('en');
  });

  it('verify-email text: 400, 401, 403 and 413', async () => {
    const { admin, anonymous } = h();
    expect((await admin.PUT(CUSTOM, { ...lang('en'), body: { title: 'x'.repeat(201) } })).response.status).toBe(400);
    expect((await admin.GET(CUSTOM, lang('xx'))).response.status).toBe(400);
    expect((await admin.GET(DEFAULT, lang('xx'))).response.status).toBe(400);
    expect((await admin.DELETE(CUSTOM, lang('xx'))).response.status).toBe(400);

    expect((await anonymous.PUT(CUSTOM, { ...lang('en'), body: {} })).response.status).toBe(401);
    expect((await anonymous.GET(CUSTOM, lang('en'))).response.status).toBe(401);
    expect((await anonymous.GET(DEFAULT, lang('en'))).response.status).toBe(401);
    expect((await anonymous.DELETE(CUSTOM, lang('en'))).response.status).toBe(401);
    expect((await anonymous.GET('/admin/v1/languages')).response.status).toBe(401);

    const { client: nobody } = await h().userWithRoles({ org: ['ORG_OWNER'] });
    expect((await nobody.PUT(CUSTOM, { ...lang('en'), body: { title: 'x' } })).response.status).toBe(403);
    expect((await nobody.GET(CUSTOM, lang('en'))).response.status).toBe(403);
    expect((await nobody.GET(DEFAULT, lang('en'))).response.status).toBe(403);
    expect((await nobody.DELETE(CUSTOM, lang('en'))).response.status).toBe(403);

    const big = await admin.PUT(CUSTOM, { ...lang('en'), body: { footerText: 'x'.repeat(8000), text: 'y'.repeat(800) } as never, headers: { 'x-pad': '' } });
    expect(big.response.status).toBe(200);
    const tooBig = await h().fetch('/admin/v1/text/message/verifyemail/en', {
      method: 'PUT',
      token: h().instance.adminToken,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ footerText: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(tooBig.status).toBe(413);
  });
}
