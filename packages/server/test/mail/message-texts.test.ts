/**
 * Issue 13 (message texts of every kind): the instance's and an organisation's texts of the other
 * message types (ZITADEL's paths, the kind in the path), with the same rules as the verify-email
 * text; the organisation's password-reset text is the one its users' reset mail is written with;
 * the organisation's texts are exported.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { outboxWorkerFor, readDroppedMail } from '../support/mail.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

describeEachStore('message texts of every kind', (dialect) => {
  let s: OidcTestServer;
  const stamp = Date.now() % 1_000_000_000;
  const orgId = `${stamp}6`;
  const inOrg = { 'x-service-orgid': orgId };

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    const imported = await s.api('POST', '/admin/v1/import', {
      timeout: '1m',
      data_orgs: {
        orgs: [
          {
            orgId,
            org: { name: `Texts ${stamp}` },
            humanUsers: [
              {
                userId: `${orgId}1`,
                user: { userName: 'tess', profile: { firstName: 'Tess', lastName: 'T' }, email: { email: 'tess@example.com', isEmailVerified: true }, password: 'Secr3t-Passw0rd!' },
              },
            ],
          },
        ],
      },
    });
    expect(imported.body.errors ?? []).toEqual([]);
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('stores, shows and resets the instance\u2019s text of a kind; an unknown kind or a bad template is refused', async () => {
    const path = '/admin/v1/text/message/passwordreset/en';
    expect((await s.api('GET', path)).body.customText).toMatchObject({ isDefault: true, subject: expect.any(String) });
    expect((await s.api('PUT', path, { subject: 'Reset {{.UserName}}', title: 'Reset' })).status).toBe(200);
    expect((await s.api('GET', path)).body.customText).toMatchObject({ isDefault: false, subject: 'Reset {{.UserName}}', title: 'Reset' });
    const bad = await s.api('PUT', path, { subject: 'Reset {{.Nope}}' });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].id).toBe('TEXT-t3mpl');
    expect((await s.api('PUT', '/admin/v1/text/message/nonsense/en', { subject: 'x' })).status).toBe(400);
    expect((await s.api('DELETE', path)).status).toBe(200);
    expect((await s.api('DELETE', path)).status).toBe(404);
    // A kind without a built-in text here: the default is empty.
    expect((await s.api('GET', '/admin/v1/text/default/message/verifyphone/en')).body.customText).toMatchObject({ isDefault: true });
    expect((await s.api('PUT', '/admin/v1/text/message/domainclaimed/de', { title: 'Domain übernommen' })).status).toBe(200);
    expect((await s.api('GET', '/admin/v1/text/message/domainclaimed/de')).body.customText.title).toBe('Domain übernommen');
  });

  it('the organisation\u2019s password-reset text writes its users\u2019 reset mail, and is exported', async () => {
    const path = '/management/v1/text/message/passwordreset/en';
    expect((await s.api('PUT', path, { subject: 'Your reset, {{.FirstName}}', title: 'Org reset' }, undefined, inOrg)).status).toBe(200);
    expect((await s.api('GET', path, undefined, undefined, inOrg)).body.customText).toMatchObject({ isDefault: false, subject: 'Your reset, {{.FirstName}}' });
    expect((await s.api('POST', `/management/v1/users/${orgId}1/password/_reset`, { type: 'NOTIFICATION_TYPE_Email' }, undefined, inOrg)).status).toBe(200);
    const { worker, mailDropDir } = outboxWorkerFor(s);
    while ((await worker.runOnce()) > 0);
    expect((await readDroppedMail(mailDropDir)).map(({ mail }) => mail.subject)).toEqual(['Your reset, Tess']);

    const exported = (await s.api('POST', '/admin/v1/export', { org_ids: [orgId], timeout: '1m', response_output: true })).body;
    expect(exported.orgs[0].passwordResetMessages).toEqual([{ language: 'en', subject: 'Your reset, {{.FirstName}}', title: 'Org reset' }]);
    expect((await s.api('DELETE', path, undefined, undefined, inOrg)).status).toBe(200);
  });
});
