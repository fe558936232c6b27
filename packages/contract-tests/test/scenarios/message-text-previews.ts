import { randomUUID } from 'node:crypto';
import { startSmtpSink } from '@identity-service/server/test/support/mail.js';
import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

const ADMIN_PREVIEW = '/admin/v1/text/message/{messageType}/{language}/_preview' as const;
const ADMIN_TEST = '/admin/v1/text/message/{messageType}/{language}/_test' as const;
const ORG_PREVIEW = '/management/v1/text/message/{messageType}/{language}/_preview' as const;
const ORG_TEST = '/management/v1/text/message/{messageType}/{language}/_test' as const;
const at = (messageType: 'verifyemail' | 'init' | 'passwordreset', language = 'en') => ({ params: { path: { messageType, language } } });

/** Preview and test send of message texts at both levels (issue 35): every documented status. */
export function messageTextPreviewScenarios(h: () => Harness) {
  it('previews and test sends: 200 through a real SMTP server, 400, 401, 403, 404, 429 and 503', async () => {
    const { admin, anonymous } = h();
    const { client: outsider } = await h().userWithRoles({ org: ['ORG_END_USER_IMPERSONATOR'] });
    const userName = `preview-${randomUUID().slice(0, 8)}`;
    const created = await admin.POST('/management/v1/users/human/_import', {
      body: { userName, profile: { firstName: 'Pre', lastName: 'View' }, email: { email: `${userName}@example.com` }, password: 'Contr4ct-Preview!' },
    });
    expect(created.response.status).toBe(200);
    const userId = created.data!.userId;
    const to = { receiverAddress: 'reviewer@example.com' };

    for (const path of [ADMIN_PREVIEW, ORG_PREVIEW]) {
      const preview = await admin.POST(path, { ...at('verifyemail'), body: { userId, customText: { subject: 'Hello {{.FirstName}}' } } });
      expect(preview.response.status).toBe(200);
      expect(preview.data).toMatchObject({ subject: 'Hello Pre', language: 'en', sampleVariables: ['Code'] });
      expect((await admin.POST(path, { ...at('init'), body: { customText: { text: '{{.Secret}}' } } })).response.status).toBe(400);
      expect((await admin.POST(path, { ...at('init'), body: { userId: 'missing' } })).response.status).toBe(404);
    }

    // No SMTP provider active and no mail-drop folder in this harness: no transport, 503.
    for (const path of [ADMIN_TEST, ORG_TEST]) {
      const none = await admin.POST(path, { ...at('passwordreset'), body: to });
      expect(none.response.status).toBe(503);
      expect(none.error?.code).toBe(14);
      expect((await admin.POST(path, { ...at('passwordreset'), body: { receiverAddress: 'nobody' } })).response.status).toBe(400);
      expect((await admin.POST(path, { ...at('passwordreset'), body: { ...to, userId: 'missing' } })).response.status).toBe(404);
    }

    const sink = await startSmtpSink();
    const added = await admin.POST('/admin/v1/smtp', { body: { senderAddress: 'noreply@example.com', senderName: 'Contract', host: `127.0.0.1:${sink.port}`, description: 'previews' } });
    const id = added.data!.id;
    expect((await admin.POST('/admin/v1/smtp/{id}/_activate', { params: { path: { id } } })).response.status).toBe(200);
    try {
      for (const path of [ADMIN_TEST, ORG_TEST]) {
        const sent = await admin.POST(path, { ...at('init'), body: { ...to, userId } });
        expect(sent.response.status).toBe(200);
        expect(sent.data).toMatchObject({ accepted: true, transport: 'smtp', smtpConfigId: id });
      }
      expect(sink.messages.length).toBe(2);
      // A caller's budget of test sends (10 a minute), then 429.
      const { client: sender } = await h().userWithRoles({ org: ['ORG_SETTINGS_MANAGER'] });
      for (let i = 0; i < 10; i++) expect((await sender.POST(ORG_TEST, { ...at('verifyemail'), body: to })).response.status).toBe(200);
      const limited = await sender.POST(ORG_TEST, { ...at('verifyemail'), body: to });
      expect(limited.response.status).toBe(429);
      expect(limited.response.headers.get('retry-after')).toMatch(/^\d+$/);
      const { client: admins } = await h().userWithRoles({ instance: ['IAM_OWNER'] });
      for (let i = 0; i < 10; i++) expect((await admins.POST(ADMIN_TEST, { ...at('verifyemail'), body: to })).response.status).toBe(200);
      expect((await admins.POST(ADMIN_TEST, { ...at('verifyemail'), body: to })).response.status).toBe(429);
    } finally {
      await admin.POST('/admin/v1/smtp/{id}/_deactivate', { params: { path: { id } } });
      await admin.DELETE('/admin/v1/smtp/{id}', { params: { path: { id } } });
      await sink.close();
    }

    for (const [c, status] of [
      [anonymous, 401],
      [outsider, 403],
    ] as const) {
      expect((await c.POST(ADMIN_PREVIEW, { ...at('verifyemail'), body: {} })).response.status).toBe(status);
      expect((await c.POST(ORG_PREVIEW, { ...at('verifyemail'), body: {} })).response.status).toBe(status);
      expect((await c.POST(ADMIN_TEST, { ...at('verifyemail'), body: to })).response.status).toBe(status);
      expect((await c.POST(ORG_TEST, { ...at('verifyemail'), body: to })).response.status).toBe(status);
    }
  });
}
