/**
 * Issue 35: preview and test send of message texts, on a real server on loopback with the real
 * SMTP server the mail tests run (smtp-server, read with mailparser). The preview must be what the
 * outbox delivers: both render through renderUserMail, and this file holds them equal byte for
 * byte (but for the code, which only a sent mail has).
 */
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SAMPLE_CODE } from '../../src/domain/notifications/compose.js';
import { TEST_SEND_HEADER, TEST_SENDS_PER_MINUTE } from '../../src/domain/texts/preview.js';
import { describeEachStore, insertMachineUserWithToken } from '../support/instance.js';
import { linkIn, outboxWorkerFor, readDroppedMail, type SmtpSink, startSmtpSink } from '../support/mail.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';
import { freePort } from '../support/ports.js';
import { tempDir } from '../support/temp-dir.js';

const ADMIN_PREVIEW = (kind: string, language = 'en') => `/admin/v1/text/message/${kind}/${language}/_preview`;
const ORG_PREVIEW = (kind: string, language = 'en') => `/management/v1/text/message/${kind}/${language}/_preview`;
const ADMIN_TEST = (kind: string, language = 'en') => `/admin/v1/text/message/${kind}/${language}/_test`;
const ORG_TEST = (kind: string, language = 'en') => `/management/v1/text/message/${kind}/${language}/_test`;

describeEachStore('message text preview and test send', (dialect) => {
  let s: OidcTestServer;
  let sink: SmtpSink;
  let mailDropDir: string;
  let n = 0;
  beforeAll(async () => {
    mailDropDir = tempDir('text-test-send-');
    s = await startOidcServer(dialect, { mailDropDir });
    sink = await startSmtpSink();
  }, 60_000);
  afterAll(async () => {
    await sink?.close();
    await s?.close();
  });

  const newOrg = async () => (await s.api('POST', '/management/v1/orgs', { name: `preview-${dialect}-${++n}-${Date.now()}` })).body.id as string;
  const importUser = async (headers: Record<string, string> = {}, profile: Record<string, unknown> = {}) => {
    const userName = `p${++n}-${dialect}`;
    const res = await s.api(
      'POST',
      '/management/v1/users/human/_import',
      {
        userName,
        profile: { firstName: 'Ann <&>', lastName: 'O\u2019Brien', ...profile },
        email: { email: `${userName}@example.com` },
        password: 'Passw0rd-Preview!',
      },
      undefined,
      headers,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { userId: res.body.userId as string, userName, email: `${userName}@example.com` };
  };
  /** An SMTP provider for `port` (no authentication), activated; returns its id. */
  const activateProvider = async (port: number) => {
    const added = await s.api('POST', '/admin/v1/smtp', { senderAddress: 'noreply@identity.example', senderName: 'Identity', host: `127.0.0.1:${port}`, description: `port ${port}` });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect((await s.api('POST', `/admin/v1/smtp/${added.body.id}/_activate`)).status).toBe(200);
    return added.body.id as string;
  };
  const removeProvider = async (id: string) => {
    await s.api('POST', `/admin/v1/smtp/${id}/_deactivate`);
    expect((await s.api('DELETE', `/admin/v1/smtp/${id}`)).status).toBe(200);
  };
  const drainOutbox = async () => {
    const { worker } = outboxWorkerFor(s);
    while ((await worker.runOnce()) > 0);
    await worker.stop();
  };

  it('a preview for a user equals, byte for byte in subject, plain text and HTML, the mail the outbox then delivers to that user (but the code)', async () => {
    await drainOutbox();
    const org = await newOrg();
    const inOrg = { 'x-service-orgid': org };
    // Values and a text with characters HTML escapes, variables in every part, the org's colours.
    expect((await s.api('PUT', '/admin/v1/text/message/verifyemail/en', { title: 'Instance title', text: 'Instance text {{.Code}}', buttonText: 'Go' })).status).toBe(200);
    expect(
      (
        await s.api(
          'PUT',
          '/management/v1/text/message/verifyemail/en',
          {
            subject: 'Hi {{.FirstName}} & co, code {{.Code}}',
            greeting: 'Dear {{.DisplayName}} <{{.LastEmail}}>,',
            text: 'Your code: {{.Code}}\nLogin: {{.PreferredLoginName}}',
            footerText: 'Sent to {{.LoginNames}}',
          },
          undefined,
          inOrg,
        )
      ).status,
    ).toBe(200);
    expect((await s.api('POST', '/management/v1/policies/label', { primaryColor: '#112233' }, undefined, inOrg)).status).toBe(200);
    const providerId = await activateProvider(sink.port);
    try {
      const user = await importUser(inOrg);
      const preview = await s.api('POST', ORG_PREVIEW('verifyemail'), { userId: user.userId }, undefined, inOrg);
      expect(preview.status, JSON.stringify(preview.body)).toBe(200);
      expect(preview.body.sampleVariables).toEqual(['Code']);
      expect(preview.body.subject).toBe(`Hi Ann <&> & co, code ${SAMPLE_CODE}`);
      expect(preview.body.html).toContain('#112233');
      expect(preview.body.html).toContain('Dear Ann &#60;&#38;&#62; O&#8217;Brien'.replace('&#8217;', '\u2019'));

      const before = sink.messages.length;
      await drainOutbox();
      const delivered = sink.messages.slice(before).find((m) => sink.envelopes[sink.messages.indexOf(m)]!.to.includes(user.email));
      expect(delivered, 'the outbox delivered the verification mail').toBeDefined();
      const code = linkIn(delivered!).searchParams.get('code')!;
      expect(code).toMatch(/^[A-Z0-9]{6}$/);
      const asPreviewed = (s: string) => s.replaceAll(code, SAMPLE_CODE);
      expect(asPreviewed(delivered!.subject!)).toBe(preview.body.subject);
      expect(asPreviewed(delivered!.text!)).toBe(preview.body.plainText);
      expect(asPreviewed(delivered!.html as string)).toBe(preview.body.html);
    } finally {
      await removeProvider(providerId);
      await s.api('DELETE', '/management/v1/text/message/verifyemail/en', undefined, undefined, inOrg);
      await s.api('DELETE', '/admin/v1/text/message/verifyemail/en');
    }
  });

  it('every kind the service mails can be previewed at both levels; without a user the values are marked samples', async () => {
    for (const kind of ['verifyemail', 'init', 'passwordreset']) {
      for (const path of [ADMIN_PREVIEW(kind, 'de'), ORG_PREVIEW(kind, 'de')]) {
        const res = await s.api('POST', path, {});
        expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
        expect(res.body.language).toBe('de');
        expect(res.body.subject.length).toBeGreaterThan(0);
        expect(res.body.sampleVariables).toContain('DisplayName');
        expect(res.body.plainText).toContain(SAMPLE_CODE);
        expect(res.body.plainText).toContain('userID=SAMPLE-USER-ID');
        expect(res.body.html).toMatch(/^<!doctype html><html lang="de">/);
      }
    }
    // A kind the service does not mail has no preview.
    expect((await s.api('POST', ADMIN_PREVIEW('verifyphone'), {})).status).toBe(400);
  });

  it('a preview of a text not stored changes nothing: the stored texts, the events, the outbox and the mail stay as they were', async () => {
    const org = await newOrg();
    const inOrg = { 'x-service-orgid': org };
    expect((await s.api('PUT', '/management/v1/text/message/init/en', { subject: 'Stored org subject' }, undefined, inOrg)).status).toBe(200);
    const user = await importUser(inOrg);
    await drainOutbox();
    const snapshot = async () => ({
      instance: (await s.api('GET', '/admin/v1/text/message/init/en')).body,
      org: (await s.api('GET', '/management/v1/text/message/init/en', undefined, undefined, inOrg)).body,
      events: (await s.t.store.read.events.search({ limit: 1, offset: 0, asc: false })).events[0]!.position,
      outbox: (await s.api('POST', '/admin/v1/notifications/_search', {})).body.counts,
      drops: (await readDroppedMail(mailDropDir)).length,
      smtp: sink.messages.length,
    });
    const before = await snapshot();
    const draft = { subject: 'Unsaved {{.UserName}}', text: 'Draft {{.Code}}' };
    const atOrg = await s.api('POST', ORG_PREVIEW('init'), { customText: draft, userId: user.userId }, undefined, inOrg);
    expect(atOrg.status, JSON.stringify(atOrg.body)).toBe(200);
    expect(atOrg.body.subject).toBe(`Unsaved ${user.userName}`);
    const atInstance = await s.api('POST', ADMIN_PREVIEW('init'), { customText: draft });
    expect(atInstance.body.subject).toBe('Unsaved sample.user');
    expect(await snapshot()).toEqual(before);
  });

  it("the organisation's preview uses its text over the instance's, field by field; a draft replaces the stored text as PUT would; its label colours", async () => {
    const org = await newOrg();
    const inOrg = { 'x-service-orgid': org };
    expect((await s.api('PUT', '/admin/v1/text/message/passwordreset/en', { subject: 'Instance subject', title: 'Instance title', text: 'Instance {{.Code}}' })).status).toBe(200);
    expect((await s.api('PUT', '/management/v1/text/message/passwordreset/en', { subject: 'Org subject' }, undefined, inOrg)).status).toBe(200);
    expect((await s.api('POST', '/management/v1/policies/label', { primaryColor: '#abcdef' }, undefined, inOrg)).status).toBe(200);
    try {
      const org1 = (await s.api('POST', ORG_PREVIEW('passwordreset'), {}, undefined, inOrg)).body;
      expect(org1.subject).toBe('Org subject');
      expect(org1.plainText.split('\n')[0]).toBe('Instance title');
      expect(org1.plainText).toContain(`Instance ${SAMPLE_CODE}`);
      expect(org1.html).toContain('#abcdef');
      expect(org1.plainText).toContain(`orgID=${org}`);
      const instance = (await s.api('POST', ADMIN_PREVIEW('passwordreset'), {})).body;
      expect(instance.subject).toBe('Instance subject');
      expect(instance.html).not.toContain('#abcdef');
      // A draft of the organisation's text without a subject: the instance's subject, as after PUT.
      const draft = (await s.api('POST', ORG_PREVIEW('passwordreset'), { customText: { title: 'Draft title' } }, undefined, inOrg)).body;
      expect(draft.subject).toBe('Instance subject');
      expect(draft.plainText.split('\n')[0]).toBe('Draft title');
    } finally {
      await s.api('DELETE', '/admin/v1/text/message/passwordreset/en');
    }
  });

  it('what PUT refuses, a preview refuses with 400 naming the field; a user elsewhere is not found', async () => {
    const bad = await s.api('POST', ADMIN_PREVIEW('verifyemail'), { customText: { text: 'Hello {{.Password}}' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe(3);
    expect(bad.body.message).toMatch(/^invalid customText\.text: unknown variable \{\{\.Password\}\}/);
    const long = await s.api('POST', ORG_PREVIEW('verifyemail'), { customText: { title: 'x'.repeat(201) } });
    expect(long.status).toBe(400);
    expect(long.body.message).toMatch(/^invalid customText\.title: /);
    const unknown = await s.api('POST', ADMIN_PREVIEW('verifyemail'), { customText: { titel: 'x' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('titel');
    expect((await s.api('POST', ADMIN_PREVIEW('verifyemail', 'xx'), {})).status).toBe(400);
    const sendBad = await s.api('POST', ADMIN_TEST('verifyemail'), { receiverAddress: 'me@example.com', customText: { subject: '{{.Nope}}' } });
    expect(sendBad.status).toBe(400);
    expect(sendBad.body.message).toMatch(/^invalid customText\.subject: /);
    expect((await s.api('POST', ADMIN_TEST('verifyemail'), { receiverAddress: 'nobody' })).body.message).toMatch(/^invalid receiverAddress/);

    const elsewhere = await importUser({ 'x-service-orgid': await newOrg() });
    const missing = await s.api('POST', ORG_PREVIEW('verifyemail'), { userId: elsewhere.userId });
    expect(missing.status).toBe(404);
    const { userId: machine } = await insertMachineUserWithToken(s.t, { orgId: s.t.defaultOrgId });
    expect((await s.api('POST', ORG_PREVIEW('verifyemail'), { userId: machine })).status).toBe(400);
  });

  it('a test send arrives at the SMTP server, marked as a test and as previewed, and answers the server\u2019s response line; without a provider, the mail-drop file', async () => {
    const providerId = await activateProvider(sink.port);
    try {
      const before = sink.messages.length;
      const body = { receiverAddress: 'reviewer@example.com', customText: { subject: 'Test of {{.FirstName}}' } };
      const sent = await s.api('POST', ORG_TEST('verifyemail'), body);
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      expect(sent.body).toMatchObject({ accepted: true, transport: 'smtp', smtpConfigId: providerId, response: expect.stringMatching(/^250 /) });
      expect(sink.messages.length).toBe(before + 1);
      const mail = sink.messages.at(-1)!;
      expect(sink.envelopes.at(-1)!.to).toEqual(['reviewer@example.com']);
      expect(mail.headers.get(TEST_SEND_HEADER.toLowerCase())).toBe('message-text');
      const preview = (await s.api('POST', ORG_PREVIEW('verifyemail'), { customText: body.customText })).body;
      expect(mail.subject).toBe('Test of Sample');
      expect(mail.subject).toBe(preview.subject);
      expect(mail.text).toBe(preview.plainText);
      expect(mail.from?.value[0]).toEqual({ address: 'noreply@identity.example', name: 'Identity' });
    } finally {
      await removeProvider(providerId);
    }
    const dropped = await s.api('POST', ADMIN_TEST('init'), { receiverAddress: 'reviewer@example.com' });
    expect(dropped.status, JSON.stringify(dropped.body)).toBe(200);
    expect(dropped.body).toMatchObject({ accepted: true, transport: 'mail-drop', file: expect.stringMatching(/\.eml$/) });
    expect(existsSync(join(mailDropDir, dropped.body.file))).toBe(true);
    const file = (await readDroppedMail(mailDropDir)).find((d) => d.file === dropped.body.file)!;
    expect(file.mail.headers.get(TEST_SEND_HEADER.toLowerCase())).toBe('message-text');
  });

  it('a refusal by the SMTP server is accepted: false with its answer; a server that cannot be reached is 503 with the reason', async () => {
    const refusing = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      authOptional: true,
      logger: false,
      onRcptTo(address, _session, callback) {
        const error = Object.assign(new Error(`No such mailbox: ${address.address}`), { responseCode: 550 });
        callback(error);
      },
    });
    refusing.on('error', () => undefined); // a client's reset connection (see support/mail.ts)
    refusing.listen(0, '127.0.0.1');
    await once(refusing.server, 'listening');
    let providerId = await activateProvider((refusing.server.address() as AddressInfo).port);
    try {
      const refused = await s.api('POST', ADMIN_TEST('verifyemail'), { receiverAddress: 'ghost@example.com' });
      expect(refused.status, JSON.stringify(refused.body)).toBe(200);
      expect(refused.body).toMatchObject({ accepted: false, transport: 'smtp', response: expect.stringMatching(/^550 .*No such mailbox/) });
    } finally {
      await removeProvider(providerId);
      await new Promise<void>((r) => refusing.close(() => r()));
    }
    providerId = await activateProvider(await freePort());
    try {
      const down = await s.api('POST', ADMIN_TEST('verifyemail'), { receiverAddress: 'ghost@example.com' });
      expect(down.status).toBe(503);
      expect(down.body.code).toBe(14);
      expect(down.body.message).toMatch(/the mail was not sent through SMTP provider .*ECONNREFUSED/);
    } finally {
      await removeProvider(providerId);
    }
  });

  it('permissions: previews need the read permission of the level, test sends the write one (403, code 7); a user\u2019s values need user.read; test sends are limited per caller', async () => {
    const org = await newOrg();
    const { token: viewer } = await insertMachineUserWithToken(s.t, { instanceRoles: ['IAM_OWNER_VIEWER'] });
    const { token: settings } = await insertMachineUserWithToken(s.t, { orgId: org, orgRoles: ['ORG_SETTINGS_MANAGER'] });
    const { token: stranger } = await insertMachineUserWithToken(s.t, { orgId: org, orgRoles: ['ORG_END_USER_IMPERSONATOR'] });
    const user = await importUser({ 'x-service-orgid': org });
    const to = { receiverAddress: 'reviewer@example.com' };

    expect((await s.api('POST', ADMIN_PREVIEW('verifyemail'), {}, viewer)).status).toBe(200);
    const viewerSend = await s.api('POST', ADMIN_TEST('verifyemail'), to, viewer);
    expect([viewerSend.status, viewerSend.body.code]).toEqual([403, 7]);
    for (const path of [ORG_PREVIEW('verifyemail'), ORG_TEST('verifyemail'), ADMIN_PREVIEW('verifyemail')]) {
      const res = await s.api('POST', path, path.endsWith('_test') ? to : {}, stranger);
      expect([res.status, res.body.code], path).toEqual([403, 7]);
    }
    // The organisation's settings manager may see and send its texts, but not fill them from a user it may not read.
    expect((await s.api('POST', ORG_PREVIEW('verifyemail'), {}, settings)).status).toBe(200);
    expect((await s.api('POST', ADMIN_PREVIEW('verifyemail'), {}, settings)).status).toBe(403);
    const withUser = await s.api('POST', ORG_PREVIEW('verifyemail'), { userId: user.userId }, settings);
    expect([withUser.status, withUser.body.code]).toEqual([403, 7]);

    // The budget: TEST_SENDS_PER_MINUTE accepted sends, then 429 with Retry-After; another caller is not held up.
    for (let i = 0; i < TEST_SENDS_PER_MINUTE; i++) expect((await s.api('POST', ORG_TEST('init'), to, settings)).status).toBe(200);
    const res = await fetch(`${s.issuer}${ORG_TEST('init')}`, { method: 'POST', headers: { authorization: `Bearer ${settings}`, 'content-type': 'application/json' }, body: JSON.stringify(to) });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await res.json()) as { code: number }).code).toBe(8);
    expect((await s.api('POST', ADMIN_TEST('init'), to)).status).toBe(200);
  });
});
