/**
 * Issue 10: mail through an SMTP provider (a real smtp-server on loopback, read with mailparser),
 * the provider API and its test call, which text a user gets, and the outbox's guarantees —
 * retried while the server is down, delivered after a restart, exactly once with two workers.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OutboxWorker } from '../../src/background/outbox-worker.js';
import { queueUserMessage } from '../../src/domain/notifications/queue.js';
import { processSecretBox } from '../../src/secrets/secret-box.js';
import { openStore } from '../../src/store/store.js';
import { describeEachStore } from '../support/instance.js';
import { linkIn, outboxWorkerFor, readDroppedMail, type SmtpSink, startSmtpSink } from '../support/mail.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';
import { freePort } from '../support/ports.js';

describeEachStore('mail delivery', (dialect) => {
  let s: OidcTestServer;
  let sink: SmtpSink;
  let n = 0;
  beforeAll(async () => {
    s = await startOidcServer(dialect);
    sink = await startSmtpSink({ user: 'mailer', password: 'smtp-secret' });
  }, 60_000);
  afterAll(async () => {
    await sink?.close();
    await s?.close();
  });
  const importUser = (extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
    const userName = `u${++n}-${dialect}`;
    return s
      .api(
        'POST',
        '/management/v1/users/human/_import',
        {
          userName,
          profile: { firstName: 'Ann', lastName: 'Smith' },
          email: { email: `${userName}@example.com` },
          password: 'Passw0rd-Mail!',
          ...extra,
        },
        undefined,
        headers,
      )
      .then((r) => ({ ...r, userName }));
  };
  const addProvider = async (port: number, password = 'smtp-secret') => {
    const added = await s.api('POST', '/admin/v1/smtp', {
      senderAddress: 'noreply@identity.example',
      senderName: 'Identity',
      tls: false,
      host: `127.0.0.1:${port}`,
      user: 'mailer',
      password,
      description: `sink ${port}`,
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    return added.body.id as string;
  };

  it('an activated SMTP provider: the test call succeeds, the mail arrives with its From and To, the password never shows', async () => {
    const id = await addProvider(sink.port);
    const read = await s.api('GET', `/admin/v1/smtp/${id}`);
    expect(read.body.smtpConfig).toMatchObject({ id, senderAddress: 'noreply@identity.example', host: `127.0.0.1:${sink.port}`, user: 'mailer', tls: false, state: 'SMTP_CONFIG_INACTIVE' });
    expect(JSON.stringify(read.body)).not.toContain('smtp-secret');
    const events = await s.api('POST', '/admin/v1/events/_search', { eventTypes: ['instance.smtp.config.added'] });
    expect(JSON.stringify(events.body)).not.toContain('smtp-secret');
    const row = await s.t.store.read.notifications.provider(id);
    expect(row!.passwordSealed).toMatch(/^sb1\./);

    const before = sink.messages.length;
    const test = await s.api('POST', `/admin/v1/smtp/${id}/_test`, { receiverAddress: 'admin@example.com' });
    expect(test.status, JSON.stringify(test.body)).toBe(200);
    expect(sink.messages.length).toBe(before + 1);
    expect(sink.messages.at(-1)!.subject).toBe('identity-service: SMTP test');

    expect((await s.api('POST', `/admin/v1/smtp/${id}/_activate`)).status).toBe(200);
    expect((await s.api('GET', '/admin/v1/smtp')).body.smtpConfig.id).toBe(id);
    const user = await importUser();
    const { worker, mailDropDir } = outboxWorkerFor(s);
    expect(await worker.runOnce()).toBe(1);
    await worker.stop();
    expect(await readDroppedMail(mailDropDir)).toEqual([]);
    const mail = sink.messages.at(-1)!;
    expect(mail.from?.value[0]).toEqual({ address: 'noreply@identity.example', name: 'Identity' });
    expect(sink.envelopes.at(-1)!.to).toEqual([`${user.userName}@example.com`]);
    expect(mail.subject).toBe('Verify email');
    expect(linkIn(mail).searchParams.get('userID')).toBe(user.body.userId);
    const outbox = await s.api('POST', '/admin/v1/notifications/_search', { userId: user.body.userId });
    expect(outbox.body.result).toEqual([expect.objectContaining({ status: 'sent', messageType: 'verify_email', attempts: 0, deliveredVia: `smtp:${id}` })]);
    expect((await s.api('POST', `/admin/v1/smtp/${id}/_deactivate`)).status).toBe(200);
  });

  it('a provider whose server is down: the test call answers the reason; queued mail is retried and delivered once it is back', async () => {
    const port = await freePort();
    const id = await addProvider(port);
    const test = await s.api('POST', `/admin/v1/smtp/${id}/_test`, { receiverAddress: 'admin@example.com' });
    expect(test.status).toBe(400);
    expect(test.body.message).toMatch(/the test mail was not sent: .*ECONNREFUSED/);
    const wrongPassword = await s.api('POST', '/admin/v1/smtp/_test', {
      senderAddress: 'noreply@identity.example',
      senderName: 'Identity',
      host: `127.0.0.1:${sink.port}`,
      user: 'mailer',
      password: 'wrong',
      receiverAddress: 'admin@example.com',
    });
    expect(wrongPassword.status).toBe(400);
    expect(wrongPassword.body.message).toMatch(/Invalid username or password|authentication|535/i);

    expect((await s.api('POST', `/admin/v1/smtp/${id}/_activate`)).status).toBe(200);
    const user = await importUser();
    const { worker } = outboxWorkerFor(s, { baseBackoffMs: 1 });
    await worker.runOnce();
    const pending = (await s.api('POST', '/admin/v1/notifications/_search', { userId: user.body.userId })).body.result[0];
    expect(pending).toMatchObject({ status: 'pending', attempts: 1, lastError: expect.stringContaining('ECONNREFUSED') });

    const late = await startSmtpSink({ port });
    try {
      await new Promise((r) => setTimeout(r, 5));
      await worker.runOnce();
      expect(late.messages).toHaveLength(1);
      expect(late.envelopes[0]!.to).toEqual([`${user.userName}@example.com`]);
      const sent = (await s.api('POST', '/admin/v1/notifications/_search', { userId: user.body.userId })).body.result[0];
      expect(sent).toMatchObject({ status: 'sent', attempts: 1 });
    } finally {
      await worker.stop();
      await late.close();
      await s.api('DELETE', `/admin/v1/smtp/${id}`);
    }
  });

  it('committed but not yet sent when the process stopped: a new worker (after a restart) delivers it', async () => {
    const user = await importUser();
    const { worker, mailDropDir } = outboxWorkerFor(s);
    // A first process leased the message and died before sending: the lease runs out.
    const leased = await s.t.store.transaction((tx) => tx.notifications.claimDue(new Date(), new Date(Date.now() + 50), 100));
    expect(leased.map((r) => r.userId)).toContain(user.body.userId);
    expect(await worker.runOnce()).toBe(0);
    await new Promise((r) => setTimeout(r, 80));
    expect(await worker.runOnce()).toBeGreaterThanOrEqual(1);
    const dropped = await readDroppedMail(mailDropDir);
    expect(dropped.map((d) => (d.mail.to && 'text' in d.mail.to ? d.mail.to.text : ''))).toContain(`${user.userName}@example.com`);
  });

  it("the organisation's text wins over the instance's, which wins over the built-in one; the user's language picks the text", async () => {
    const org = (await s.api('POST', '/management/v1/orgs', { name: `texts-${dialect}-${Date.now()}` })).body.id;
    const inOrg = { 'x-service-orgid': org };
    expect((await s.api('PUT', '/admin/v1/text/message/verifyemail/en', { subject: 'Instance text for {{.UserName}}' })).status).toBe(200);
    expect((await s.api('PUT', '/admin/v1/text/message/verifyemail/de', { subject: 'Instanz-Text für {{.FirstName}}' })).status).toBe(200);
    expect((await s.api('PUT', '/management/v1/text/message/verifyemail/en', { subject: 'Org text, code {{.Code}}' }, undefined, inOrg)).status).toBe(200);
    const orgText = await s.api('GET', '/management/v1/text/message/verifyemail/en', undefined, undefined, inOrg);
    expect(orgText.body.customText).toMatchObject({ subject: 'Org text, code {{.Code}}', isDefault: false });
    const orgDefault = await s.api('GET', '/management/v1/text/default/message/verifyemail/en', undefined, undefined, inOrg);
    expect(orgDefault.body.customText).toMatchObject({ subject: 'Instance text for {{.UserName}}', title: 'Verify email', isDefault: true });
    const bad = await s.api('PUT', '/management/v1/text/message/verifyemail/en', { text: 'Hello {{.Password}}' }, undefined, inOrg);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^invalid text: unknown variable \{\{\.Password\}\}/);

    const inOrgUser = await importUser({}, inOrg);
    const defaultOrgUser = await importUser();
    const german = await importUser({ profile: { firstName: 'Jörg', lastName: 'K', preferredLanguage: 'de' } });
    const french = await importUser({ profile: { firstName: 'Zoé', lastName: 'K', preferredLanguage: 'fr' } });
    const { worker, mailDropDir } = outboxWorkerFor(s);
    await worker.runOnce();
    const subjects = new Map((await readDroppedMail(mailDropDir)).map(({ mail }) => [mail.to && 'text' in mail.to ? mail.to.text : '', mail.subject]));
    expect(subjects.get(`${inOrgUser.userName}@example.com`)).toMatch(/^Org text, code [A-Z0-9]{6}$/);
    expect(subjects.get(`${defaultOrgUser.userName}@example.com`)).toBe(`Instance text for ${defaultOrgUser.userName}`);
    expect(subjects.get(`${german.userName}@example.com`)).toBe('Instanz-Text für Jörg');
    // No French text stored: the built-in French one.
    expect(subjects.get(`${french.userName}@example.com`)).toBe("Vérifier l'email");
    await s.api('DELETE', '/admin/v1/text/message/verifyemail/en');
    await s.api('DELETE', '/admin/v1/text/message/verifyemail/de');
  });

  it('email change and resend: each mail carries a new code, the older one stops working; the API verifies with the code', async () => {
    const user = await importUser();
    const id = user.body.userId;
    const { worker, mailDropDir } = outboxWorkerFor(s);
    await worker.runOnce();
    expect((await s.api('POST', `/management/v1/users/${id}/email/_resend_verification`)).status).toBe(200);
    await worker.runOnce();
    const mails = await readDroppedMail(mailDropDir);
    const codes = mails.map(({ mail }) => linkIn(mail).searchParams.get('code'));
    expect(codes).toHaveLength(2);
    const verify = (code: string) => s.api('POST', `/management/v1/users/${id}/email/_verify`, { verificationCode: code });
    const old = await verify(codes[0]!);
    expect(old.status).toBe(400);
    expect(old.body.message).toContain('The code is wrong');

    expect((await s.api('PUT', `/management/v1/users/${id}/email`, { email: `new-${user.userName}@example.com` })).status).toBe(200);
    // The newest code was for the old address: it verifies nothing now.
    expect((await verify(codes[1]!)).status).toBe(404);
    await worker.runOnce();
    const newest = (await readDroppedMail(mailDropDir)).find(({ mail }) => (mail.to && 'text' in mail.to ? mail.to.text : '') === `new-${user.userName}@example.com`)!;
    expect((await verify(linkIn(newest.mail).searchParams.get('code')!)).status).toBe(200);
    expect((await s.api('GET', `/management/v1/users/${id}`)).body.user.human.email).toEqual({ email: `new-${user.userName}@example.com`, isEmailVerified: true });
    expect((await s.api('POST', `/management/v1/users/${id}/email/_resend_verification`)).status).toBe(400);
  });

  // Two real server processes deliver 1,000 on PostgreSQL in test/project/process.test.ts. Here the case
  // leases exist for: a worker whose batch outlasts its lease. Worker A leases all 20 messages and
  // sends 4 at a time to a slow SMTP server (300 ms each), so its lease (1 s) runs out before its
  // batch ends; worker B, idle, leases the tail and sends it; A must then leave those alone. On
  // PostgreSQL B has its own store (another process's worth); SQLite is one process by design.
  it('a batch that outlasts its lease is taken over by another worker, and still every message goes once', async () => {
    const drain = outboxWorkerFor(s).worker;
    while ((await drain.runOnce()) > 0); // what earlier tests left, to the mail-drop folder
    const counter = await startSmtpSink({ delayMs: 300 });
    const id = await addProvider(counter.port);
    // The counting sink takes no authentication: a provider without user.
    expect((await s.api('PUT', `/admin/v1/smtp/${id}`, { senderAddress: 'noreply@identity.example', senderName: 'Identity', host: `127.0.0.1:${counter.port}`, description: 'counter' })).status).toBe(
      200,
    );
    expect((await s.api('POST', `/admin/v1/smtp/${id}/_activate`)).status).toBe(200);
    const target = await importUser();
    await drain.runOnce(); // the new user's own verification mail
    const before = counter.messages.length;
    const queued = await s.t.store.transaction(async (tx) => {
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push(await queueUserMessage(tx, 'verify_email', { id: target.body.userId, orgId: s.t.defaultOrgId, email: `${target.userName}@example.com` }));
      return ids;
    });
    const other = dialect === 'postgres' ? await openStore(s.t.location) : s.t.store;
    let takeovers = 0;
    const logger = { debug: (msg: string) => void (msg.includes('taken over') && takeovers++), info: () => undefined, warn: () => undefined, error: () => undefined };
    const options = { secrets: processSecretBox(), instanceId: s.t.instanceId, externalUrl: s.issuer, mailDropDir: '/nonexistent', pollMs: 10, batchSize: 20, concurrency: 4, leaseMs: 1000, logger };
    const a = new OutboxWorker({ ...options, store: s.t.store });
    const b = new OutboxWorker({ ...options, store: other });
    a.start();
    await new Promise((r) => setTimeout(r, 100)); // A holds every lease now
    b.start();
    const deadline = Date.now() + 30_000;
    while (counter.messages.length - before < 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1500)); // a duplicate would arrive by now
    // Stopping closes each worker's pooled SMTP connections (the server waits for them to close).
    await Promise.all([a.stop(), b.stop(), drain.stop()]);
    if (other !== s.t.store) await other.close();
    const delivered = counter.messages.slice(before).map((m) => String(m.headers.get('x-outbox-id')));
    expect(takeovers).toBeGreaterThan(0);
    expect(delivered).toHaveLength(20);
    expect(new Set(delivered)).toEqual(new Set(queued));
    expect((await s.t.store.read.notifications.countByStatus()).pending ?? 0).toBe(0);
    await s.api('POST', `/admin/v1/smtp/${id}/_deactivate`);
    await counter.close();
  }, 60_000);
});
