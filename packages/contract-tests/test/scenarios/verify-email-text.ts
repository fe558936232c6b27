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

/** The other kinds of message texts (the kind in the path), at both levels: every documented status. */
export function messageTextScenarios(h: () => Harness) {
  it('message texts of the other kinds: every documented status', async () => {
    const { admin, anonymous, instance } = h();
    const { client: nobody } = await h().userWithRoles({ org: ['ORG_ADMIN_IMPERSONATOR'] });
    const t = (messageType: 'init' | 'passwordreset' | 'domainclaimed', language: string) => ({ params: { path: { messageType, language } } });
    for (const level of ['admin', 'management'] as const) {
      const custom = `/${level}/v1/text/message/{messageType}/{language}` as const;
      const defaults = `/${level}/v1/text/default/message/{messageType}/{language}` as const;
      expect((await admin.PUT(custom, { ...t('passwordreset', 'en'), body: { subject: 'Reset {{.UserName}}' } })).response.status, level).toBe(200);
      expect((await admin.GET(custom, t('passwordreset', 'en'))).data?.customText).toMatchObject({ subject: 'Reset {{.UserName}}', isDefault: false });
      expect((await admin.GET(defaults, t('init', 'de'))).data?.customText.isDefault).toBe(true);
      expect((await admin.DELETE(custom, t('passwordreset', 'en'))).response.status, level).toBe(200);
      expect((await admin.DELETE(custom, t('passwordreset', 'en'))).response.status, level).toBe(404);

      expect((await admin.PUT(custom, { ...t('domainclaimed', 'en'), body: { subject: '{{.Unknown}}' } })).response.status, level).toBe(400);
      expect((await admin.GET(custom, t('init', 'xx'))).response.status, level).toBe(400);
      expect((await admin.GET(defaults, t('init', 'xx'))).response.status, level).toBe(400);
      expect((await admin.DELETE(custom, t('init', 'xx'))).response.status, level).toBe(400);

      expect((await anonymous.PUT(custom, { ...t('init', 'en'), body: {} })).response.status, level).toBe(401);
      expect((await anonymous.GET(custom, t('init', 'en'))).response.status, level).toBe(401);
      expect((await anonymous.GET(defaults, t('init', 'en'))).response.status, level).toBe(401);
      expect((await anonymous.DELETE(custom, t('init', 'en'))).response.status, level).toBe(401);

      // An impersonator holds no (iam.)policy permissions.
      expect((await nobody.PUT(custom, { ...t('init', 'en'), body: { title: 'x' } })).response.status, level).toBe(403);
      expect((await nobody.GET(custom, t('init', 'en'))).response.status, level).toBe(403);
      expect((await nobody.GET(defaults, t('init', 'en'))).response.status, level).toBe(403);
      expect((await nobody.DELETE(custom, t('init', 'en'))).response.status, level).toBe(403);

      const tooBig = await h().fetch(`/${level}/v1/text/message/init/en`, {
        method: 'PUT',
        token: instance.adminToken,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ footerText: 'x'.repeat(2 * 1024 * 1024) }),
      });
      expect(tooBig.status, level).toBe(413);
    }
  });
}

/** Login texts, at both levels: every documented status. */
export function loginTextScenarios(h: () => Harness) {
  it('login texts: every documented status', async () => {
    const { admin, anonymous, instance } = h();
    const { client: nobody } = await h().userWithRoles({ org: ['ORG_ADMIN_IMPERSONATOR'] });
    const l = (language: string) => ({ params: { path: { language } } });
    for (const level of ['admin', 'management'] as const) {
      const custom = `/${level}/v1/text/login/{language}` as const;
      const defaults = `/${level}/v1/text/default/login/{language}` as const;
      expect((await admin.PUT(custom, { ...l('en'), body: { loginText: { title: 'Contract sign-in' } } })).response.status, level).toBe(200);
      expect((await admin.GET(custom, l('en'))).data?.customText).toMatchObject({ isDefault: false, loginText: { title: 'Contract sign-in' } });
      expect((await admin.GET(defaults, l('en'))).data?.customText.isDefault).toBe(true);
      expect((await admin.DELETE(custom, l('en'))).response.status, level).toBe(200);
      expect((await admin.DELETE(custom, l('en'))).response.status, level).toBe(404);

      expect((await admin.PUT(custom, { ...l('en'), body: { loginText: { title: 'x'.repeat(501) } } })).response.status, level).toBe(400);
      expect((await admin.GET(custom, l('xx'))).response.status, level).toBe(400);
      expect((await admin.GET(defaults, l('xx'))).response.status, level).toBe(400);
      expect((await admin.DELETE(custom, l('xx'))).response.status, level).toBe(400);

      expect((await anonymous.PUT(custom, { ...l('en'), body: {} })).response.status, level).toBe(401);
      expect((await anonymous.GET(custom, l('en'))).response.status, level).toBe(401);
      expect((await anonymous.GET(defaults, l('en'))).response.status, level).toBe(401);
      expect((await anonymous.DELETE(custom, l('en'))).response.status, level).toBe(401);

      expect((await nobody.PUT(custom, { ...l('en'), body: {} })).response.status, level).toBe(403);
      expect((await nobody.GET(custom, l('en'))).response.status, level).toBe(403);
      expect((await nobody.GET(defaults, l('en'))).response.status, level).toBe(403);
      expect((await nobody.DELETE(custom, l('en'))).response.status, level).toBe(403);

      const tooBig = await h().fetch(`/${level}/v1/text/login/en`, {
        method: 'PUT',
        token: instance.adminToken,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ loginText: { title: 'x'.repeat(2 * 1024 * 1024) } }),
      });
      expect(tooBig.status, level).toBe(413);
    }
  });
}
