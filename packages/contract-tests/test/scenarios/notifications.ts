import { randomUUID } from 'node:crypto';
import { OutboxWorker } from '@identity-service/server/src/background/outbox-worker.js';
import { processSecretBox } from '@identity-service/server/src/secrets/secret-box.js';
import { readDroppedMail, startSmtpSink } from '@identity-service/server/test/support/mail.js';
import { tempDir } from '@identity-service/server/test/support/temp-dir.js';
import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

const NUL = 'a\u0000b';
const ORG_TEXT = '/management/v1/text/message/verifyemail/{language}' as const;
const ORG_DEFAULT = '/management/v1/text/default/message/verifyemail/{language}' as const;
const lang = (language: string) => ({ params: { path: { language } } });
const byId = (id: string) => ({ params: { path: { id } } });
const user = (userId: string) => ({ params: { path: { userId } } });

/** SMTP providers, the outbox, users' email and the organisation's verify-email texts. */
export function notificationScenarios(h: () => Harness) {
  it('SMTP providers: every documented status, the test call against a real SMTP server', async () => {
    const { admin, anonymous } = h();
    const { client: viewer } = await h().userWithRoles({ instance: ['IAM_OWNER_VIEWER'] });
    const { client: outsider } = await h().userWithRoles({ org: ['ORG_OWNER'] });
    const sink = await startSmtpSink();
    try {
      const settings = { senderAddress: 'noreply@example.com', senderName: 'Contract', host: `127.0.0.1:${sink.port}`, description: 'contract' };
      // No provider active yet (in this harness): 404.
      await admin.POST('/admin/v1/smtp/_search', { body: {} }).then(async (list) => {
        for (const p of list.data?.result ?? []) if (p.state === 'SMTP_CONFIG_ACTIVE') await admin.POST('/admin/v1/smtp/{id}/_deactivate', byId(p.id));
      });
      expect((await admin.GET('/admin/v1/smtp')).response.status).toBe(404);
      const added = await admin.POST('/admin/v1/smtp', { body: { ...settings, password: 'smtp-pass' } });
      expect(added.response.status).toBe(200);
      const id = added.data!.id;
      expect((await admin.POST('/admin/v1/smtp', { body: { ...settings, senderAddress: 'not an address' } })).response.status).toBe(400);
      expect((await admin.GET('/admin/v1/smtp/{id}', byId(id))).data?.smtpConfig).toMatchObject({ id, state: 'SMTP_CONFIG_INACTIVE' });
      expect((await admin.GET('/admin/v1/smtp/{id}', byId('missing'))).response.status).toBe(404);
      expect((await admin.GET('/admin/v1/smtp/{id}', byId(NUL))).response.status).toBe(400);
      expect((await admin.POST('/admin/v1/smtp/_search', { body: {} })).data?.result.map((p) => p.id)).toContain(id);
      expect((await admin.POST('/admin/v1/smtp/_search', { body: { query: { limit: -1 } } })).response.status).toBe(400);

      expect((await admin.PUT('/admin/v1/smtp/{id}', { ...byId(id), body: { ...settings, description: 'changed' } })).response.status).toBe(200);
      expect((await admin.PUT('/admin/v1/smtp/{id}', { ...byId(id), body: { ...settings, description: 'changed' } })).response.status).toBe(400);
      expect((await admin.PUT('/admin/v1/smtp/{id}', { ...byId('missing'), body: settings })).response.status).toBe(404);
      expect((await admin.PUT('/admin/v1/smtp/{id}/password', { ...byId(id), body: { password: 'other' } })).response.status).toBe(200);
      expect((await admin.PUT('/admin/v1/smtp/{id}/password', { ...byId(id), body: { password: '' } })).response.status).toBe(400);
      expect((await admin.PUT('/admin/v1/smtp/{id}/password', { ...byId('missing'), body: { password: 'x' } })).response.status).toBe(404);

      expect((await admin.POST('/admin/v1/smtp/{id}/_test', { ...byId(id), body: { receiverAddress: 'admin@example.com' } })).response.status).toBe(200);
      expect((await admin.POST('/admin/v1/smtp/{id}/_test', { ...byId(id), body: { receiverAddress: 'nobody' } })).response.status).toBe(400);
      expect((await admin.POST('/admin/v1/smtp/{id}/_test', { ...byId('missing'), body: { receiverAddress: 'admin@example.com' } })).response.status).toBe(404);
      const test = { senderAddress: settings.senderAddress, senderName: settings.senderName, host: settings.host, receiverAddress: 'admin@example.com' };
      expect((await admin.POST('/admin/v1/smtp/_test', { body: test })).response.status).toBe(200);
      expect((await admin.POST('/admin/v1/smtp/_test', { body: { ...test, host: 'no:port:here' } })).response.status).toBe(400);
      expect((await admin.POST('/admin/v1/smtp/_test', { body: { ...test, id: 'missing' } })).response.status).toBe(404);
      expect(sink.messages.length).toBeGreaterThanOrEqual(2);

      expect((await admin.POST('/admin/v1/smtp/{id}/_deactivate', byId(id))).response.status).toBe(400);
      expect((await admin.POST('/admin/v1/smtp/{id}/_activate', byId(id))).response.status).toBe(200);
      expect((await admin.POST('/admin/v1/smtp/{id}/_activate', byId(id))).response.status).toBe(400);
      expect((await admin.GET('/admin/v1/smtp')).data?.smtpConfig.id).toBe(id);
      expect((await admin.POST('/admin/v1/smtp/{id}/_activate', byId('missing'))).response.status).toBe(404);
      expect((await admin.POST('/admin/v1/smtp/{id}/_deactivate', byId(id))).response.status).toBe(200);
      expect((await admin.POST('/admin/v1/smtp/{id}/_deactivate', byId('missing'))).response.status).toBe(404);
      expect((await admin.DELETE('/admin/v1/smtp/{id}', byId(NUL))).response.status).toBe(400);

      for (const [c, status] of [
        [anonymous, 401],
        [outsider, 403],
      ] as const) {
        expect((await c.GET('/admin/v1/smtp')).response.status).toBe(status);
        expect((await c.POST('/admin/v1/smtp', { body: settings })).response.status).toBe(status);
        expect((await c.POST('/admin/v1/smtp/_search', { body: {} })).response.status).toBe(status);
        expect((await c.POST('/admin/v1/smtp/_test', { body: test })).response.status).toBe(status);
        expect((await c.GET('/admin/v1/smtp/{id}', byId(id))).response.status).toBe(status);
        expect((await c.PUT('/admin/v1/smtp/{id}', { ...byId(id), body: settings })).response.status).toBe(status);
        expect((await c.PUT('/admin/v1/smtp/{id}/password', { ...byId(id), body: { password: 'x' } })).response.status).toBe(status);
        expect((await c.POST('/admin/v1/smtp/{id}/_activate', byId(id))).response.status).toBe(status);
        expect((await c.POST('/admin/v1/smtp/{id}/_deactivate', byId(id))).response.status).toBe(status);
        expect((await c.POST('/admin/v1/smtp/{id}/_test', { ...byId(id), body: { receiverAddress: 'a@example.com' } })).response.status).toBe(status);
        expect((await c.DELETE('/admin/v1/smtp/{id}', byId(id))).response.status).toBe(status);
        expect((await c.POST('/admin/v1/notifications/_search', { body: {} })).response.status).toBe(status);
      }
      // Reading is iam.read; a viewer cannot write.
      expect((await viewer.GET('/admin/v1/smtp/{id}', byId(id))).response.status).toBe(200);
      expect((await viewer.DELETE('/admin/v1/smtp/{id}', byId(id))).response.status).toBe(403);
      expect((await admin.DELETE('/admin/v1/smtp/{id}', byId(id))).response.status).toBe(200);
      expect((await admin.DELETE('/admin/v1/smtp/{id}', byId(id))).response.status).toBe(404);
    } finally {
      await sink.close();
    }
  });

  it("users' email: change, resend, verify with the mailed code; the outbox lists the mails", async () => {
    const { admin, anonymous } = h();
    const { client: outsider } = await h().userWithRoles({ org: ['ORG_OWNER_VIEWER'] });
    const userName = `mail-${randomUUID().slice(0, 8)}`;
    const created = await admin.POST('/management/v1/users/human/_import', {
      body: { userName, profile: { firstName: 'Mail', lastName: 'Box' }, email: { email: `${userName}@example.com` }, password: 'Contr4ct-Mail!' },
    });
    expect(created.response.status).toBe(200);
    const userId = created.data!.userId;
    const mailDropDir = tempDir('contract-mail-');
    const i = h().instance;
    const worker = new OutboxWorker({ store: i.store, secrets: processSecretBox(), instanceId: i.instanceId, externalUrl: 'http://identity.test', mailDropDir });
    while ((await worker.runOnce()) > 0);
    const mail = (await readDroppedMail(mailDropDir)).find(({ mail }) => (mail.to && 'text' in mail.to ? mail.to.text : '') === `${userName}@example.com`)!;
    const code = /code=([A-Z0-9]{6})/.exec(mail.mail.text ?? '')![1]!;

    const outbox = await admin.POST('/admin/v1/notifications/_search', { body: { userId } });
    expect(outbox.data?.result).toEqual([expect.objectContaining({ userId, status: 'sent', messageType: 'verify_email' })]);
    expect((await admin.POST('/admin/v1/notifications/_search', { body: { status: 'nope' as 'sent' } })).response.status).toBe(400);

    for (const wrong of ['WRONG1', 'WRONG2', 'WRONG3']) {
      expect((await admin.POST('/management/v1/users/{userId}/email/_verify', { ...user(userId), body: { verificationCode: wrong } })).response.status).toBe(400);
    }
    // After three wrong codes the next check waits a second (the code throttle): 429, nothing counted.
    const early = await admin.POST('/management/v1/users/{userId}/email/_verify', { ...user(userId), body: { verificationCode: code } });
    expect(early.response.status).toBe(429);
    expect(early.response.headers.get('retry-after')).toBe('1');
    expect((await admin.POST('/management/v1/users/{userId}/email/_verify', { ...user('missing'), body: { verificationCode: code } })).response.status).toBe(404);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await admin.POST('/management/v1/users/{userId}/email/_verify', { ...user(userId), body: { verificationCode: code } })).response.status).toBe(200);
    expect((await admin.POST('/management/v1/users/{userId}/email/_resend_verification', user(userId))).response.status).toBe(400);
    expect((await admin.POST('/management/v1/users/{userId}/email/_resend_verification', user('missing'))).response.status).toBe(404);
    expect((await admin.PUT('/management/v1/users/{userId}/email', { ...user(userId), body: { email: `new-${userName}@example.com` } })).response.status).toBe(200);
    expect((await admin.PUT('/management/v1/users/{userId}/email', { ...user(userId), body: { email: 'no address' } })).response.status).toBe(400);
    expect((await admin.PUT('/management/v1/users/{userId}/email', { ...user('missing'), body: { email: 'a@example.com' } })).response.status).toBe(404);
    expect((await admin.POST('/management/v1/users/{userId}/email/_resend_verification', user(userId))).response.status).toBe(200);

    for (const [c, status] of [
      [anonymous, 401],
      [outsider, 403],
    ] as const) {
      expect((await c.PUT('/management/v1/users/{userId}/email', { ...user(userId), body: { email: 'a@example.com' } })).response.status).toBe(status);
      expect((await c.POST('/management/v1/users/{userId}/email/_resend_verification', user(userId))).response.status).toBe(status);
      expect((await c.POST('/management/v1/users/{userId}/email/_verify', { ...user(userId), body: { verificationCode: code } })).response.status).toBe(status);
    }
  });

  it("the organisation's verify-email text: set, read, fall back, reset; 400, 401, 403, 404", async () => {
    const { admin, anonymous } = h();
    const { client: outsider } = await h().userWithRoles({ org: ['ORG_END_USER_IMPERSONATOR'] });
    expect((await admin.PUT(ORG_TEXT, { ...lang('en'), body: { title: 'Org title', text: 'Code {{.Code}}' } })).response.status).toBe(200);
    expect((await admin.GET(ORG_TEXT, lang('en'))).data?.customText).toMatchObject({ title: 'Org title', isDefault: false });
    expect((await admin.GET(ORG_DEFAULT, lang('en'))).data?.customText.isDefault).toBe(true);
    expect((await admin.PUT(ORG_TEXT, { ...lang('en'), body: { text: 'Hi {{.Secret}}' } })).response.status).toBe(400);
    expect((await admin.GET(ORG_TEXT, lang('xx'))).response.status).toBe(400);
    expect((await admin.GET(ORG_DEFAULT, lang('xx'))).response.status).toBe(400);
    expect((await admin.DELETE(ORG_TEXT, lang('xx'))).response.status).toBe(400);
    expect((await admin.DELETE(ORG_TEXT, lang('en'))).response.status).toBe(200);
    expect((await admin.DELETE(ORG_TEXT, lang('en'))).response.status).toBe(404);
    for (const [c, status] of [
      [anonymous, 401],
      [outsider, 403],
    ] as const) {
      expect((await c.PUT(ORG_TEXT, { ...lang('en'), body: {} })).response.status).toBe(status);
      expect((await c.GET(ORG_TEXT, lang('en'))).response.status).toBe(status);
      expect((await c.GET(ORG_DEFAULT, lang('en'))).response.status).toBe(status);
      expect((await c.DELETE(ORG_TEXT, lang('en'))).response.status).toBe(status);
    }
  });
}
