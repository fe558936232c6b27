/**
 * Issue 10: the verify-email text goes live. Mail is queued with the change that causes it and
 * delivered by the outbox worker to the mail-drop folder (the embedded default) or the active
 * SMTP provider; the mail's link verifies the email; the init mail's link sets a password.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { linkIn, outboxWorkerFor, readDroppedMail } from '../support/mail.js';
import { authorizeUrl, Browser, loginThroughForm, type OidcTestServer, publicClient, startOidcServer } from '../support/oidc-server.js';

/**
 * What the mail walk-through (docs/mail-and-texts.md, "Where mail goes"; the README's before issue 50) says the
 * link's page says, the first time and again (issue 48.7: it said "no open code").
 */
const MAIL_GUIDE = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../../../docs/mail-and-texts.md'), 'utf8');
const guidePages = /# opening that link says "([^"]+)"; opening it again, "([^"]+)"/.exec(MAIL_GUIDE);

describeEachStore('verification mail', (dialect) => {
  let s: OidcTestServer;
  beforeAll(async () => {
    s = await startOidcServer(dialect);
  }, 60_000);
  afterAll(() => s?.close());

  const importUser = (userName: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    s.api(
      'POST',
      '/management/v1/users/human/_import',
      {
        userName,
        profile: { firstName: 'Mail', lastName: userName },
        email: { email: `${userName}@example.com`, isEmailVerified: false },
        password: 'Passw0rd-Mail!',
        ...extra,
      },
      undefined,
      headers,
    );

  it('quick start: the instance text, filled, lands in the mail-drop folder; its link verifies once', async () => {
    expect(
      (
        await s.api('PUT', '/admin/v1/text/message/verifyemail/en', {
          title: 'Confirm',
          subject: 'Hello {{.UserName}}, confirm your address',
          greeting: 'Hi {{.FirstName}},',
          text: 'Your code: {{.Code}}. <b>not bold</b>',
          buttonText: 'Confirm now',
        })
      ).status,
    ).toBe(200);
    const created = await importUser('bob');
    expect(created.status).toBe(200);
    const { worker, mailDropDir } = outboxWorkerFor(s);
    expect(await worker.runOnce()).toBe(1);

    const dropped = await readDroppedMail(mailDropDir);
    expect(dropped).toHaveLength(1);
    expect(statSync(`${mailDropDir}/${dropped[0]!.file}`).mode & 0o777).toBe(0o600);
    const mail = dropped[0]!.mail;
    expect(mail.subject).toBe('Hello bob, confirm your address');
    expect(mail.to && 'text' in mail.to ? mail.to.text : '').toBe('bob@example.com');
    const code = /Your code: ([A-Z0-9]{6})\./.exec(mail.text ?? '')![1];
    expect(mail.html).toContain(`Your code: ${code}. &#60;b&#62;not bold&#60;/b&#62;`);
    expect(mail.html).toContain('Confirm now');
    const link = linkIn(mail);
    expect(link.pathname).toBe('/ui/login/mail/verification');
    expect(link.searchParams.get('code')).toBe(code);

    const opened = await fetch(link);
    expect(opened.status).toBe(200);
    const firstPage = await opened.text();
    expect(firstPage).toContain('Your email address is verified.');
    expect(guidePages, 'the mail guide says what the page says').not.toBeNull();
    expect(firstPage).toContain(`<h1>${guidePages![1]}</h1>`);
    const user = await s.api('GET', `/management/v1/users/${created.body.userId}`);
    expect(user.body.user.human.email).toEqual({ email: 'bob@example.com', isEmailVerified: true });
    // Used once already: the page says the address is verified (and offers what to do next).
    const again = await fetch(link);
    expect(again.status).toBe(200);
    const secondPage = await again.text();
    expect(secondPage).toContain('Email already verified');
    expect(secondPage).toContain(`<h1>${guidePages![2]}</h1>`);
    const events = await s.api('POST', '/admin/v1/events/_search', { aggregateId: created.body.userId, asc: true });
    expect(events.body.events.map((e: any) => e.type.type)).toEqual(['user.human.added', 'user.human.email.code.added', 'user.human.email.verified']);
    expect(await worker.runOnce()).toBe(0);
  });

  it('a wrong code is counted and changes nothing; after five the code is dead', async () => {
    const created = await importUser('carl');
    const { worker, mailDropDir } = outboxWorkerFor(s);
    await worker.runOnce();
    const link = linkIn((await readDroppedMail(mailDropDir))[0]!.mail);
    const wrong = new URL(link);
    wrong.searchParams.set('code', 'XXXXXX');
    const first = await fetch(wrong);
    expect(first.status).toBe(400);
    expect(await first.text()).toContain('The code is wrong');
    // Three wrong codes cost no wait, the fourth and fifth a second and two (the code throttle).
    for (let i = 0; i < 2; i++) expect((await fetch(wrong)).status).toBe(400);
    for (const wait of [1, 2]) {
      expect((await fetch(wrong)).status).toBe(429);
      await new Promise((r) => setTimeout(r, wait * 1000 + 100));
      expect((await fetch(wrong)).status).toBe(400);
    }
    const right = await fetch(link);
    expect(right.status).toBe(400);
    expect(await right.text()).toContain('entered wrongly too often');
    expect((await s.api('GET', `/management/v1/users/${created.body.userId}`)).body.user.human.email.isEmailVerified).toBeUndefined();
  });

  it('a user added without a password gets the init mail, sets a password through its link and signs in', async () => {
    const created = await s.api('POST', '/management/v1/users/human/_import', {
      userName: 'dana',
      profile: { firstName: 'Dana', lastName: 'Init', preferredLanguage: 'de' },
      email: { email: 'dana@example.com' },
    });
    expect(created.status).toBe(200);
    const { worker, mailDropDir } = outboxWorkerFor(s);
    await worker.runOnce();
    const mail = (await readDroppedMail(mailDropDir))[0]!.mail;
    expect(mail.subject).toBe('Benutzer initialisieren');
    const link = linkIn(mail);
    expect(link.pathname).toBe('/ui/login/user/init');
    const form = await fetch(link);
    expect(form.status).toBe(200);
    const post = (password: string, confirmation = password) =>
      fetch(new URL('/ui/login/user/init', s.issuer), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ userID: link.searchParams.get('userID')!, code: link.searchParams.get('code')!, password, passwordConfirmation: confirmation }),
      });
    const weak = await post('short');
    expect(weak.status).toBe(400);
    expect(await weak.text()).toContain('8');
    const done = await post('Init-Passw0rd!');
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Password set');
    const user = (await s.api('GET', `/management/v1/users/${created.body.userId}`)).body.user;
    expect(user.state).toBe('USER_STATE_ACTIVE');
    expect(user.human.email.isEmailVerified).toBe(true);
    expect((await post('Init-Passw0rd!')).status).toBe(404);

    const project = (await s.api('POST', '/management/v1/projects', { name: 'init-app' })).body.id;
    const app = await s.api('POST', `/management/v1/projects/${project}/apps/oidc`, publicClient('init', 'http://127.0.0.1:1/cb'));
    const authorize = new URL(authorizeUrl(s.issuer, { client_id: app.body.clientId, redirect_uri: 'http://127.0.0.1:1/cb' }));
    const signedIn = await loginThroughForm(new Browser(), authorize.href, 'http://127.0.0.1:1/cb', 'dana', 'Init-Passw0rd!');
    expect(signedIn.callback?.searchParams.get('code'), signedIn.page?.html.slice(0, 300)).toBeTruthy();
  });

  it('a change that rolls back queues nothing', async () => {
    const before = await s.t.store.read.notifications.countByStatus();
    expect((await importUser('bob')).status).toBe(409); // taken
    await expect(
      s.t.store.transaction(async (tx) => {
        const { queueUserMessage } = await import('../../src/domain/notifications/queue.js');
        await queueUserMessage(tx, 'verify_email', { id: 'nobody', orgId: s.t.defaultOrgId, email: 'x@example.com' });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await s.t.store.read.notifications.countByStatus()).toEqual(before);
  });
});

describeEachStore('verification mail after an import', (dialect) => {
  let s: OidcTestServer;
  beforeAll(async () => {
    s = await startOidcServer(dialect);
  }, 60_000);
  afterAll(() => s?.close());

  it('an import mails no one unless notifyUsers asks; then the unverified get the verification mail and the password-less the init mail', async () => {
    const document = (prefix: string) => ({
      orgs: [
        {
          orgId: `${prefix}1`,
          org: { name: `${prefix}-imported` },
          humanUsers: [
            { userId: `${prefix}2`, user: { userName: 'unverified', profile: { firstName: 'U', lastName: 'V' }, email: { email: `${prefix}-unverified@example.com` }, password: 'Passw0rd-Imp!' } },
            { userId: `${prefix}3`, user: { userName: 'nopassword', profile: { firstName: 'N', lastName: 'P' }, email: { email: `${prefix}-nopassword@example.com`, isEmailVerified: true } } },
            {
              userId: `${prefix}4`,
              user: { userName: 'ready', profile: { firstName: 'R', lastName: 'Y' }, email: { email: `${prefix}-ready@example.com`, isEmailVerified: true }, password: 'Passw0rd-Imp!' },
            },
          ],
        },
      ],
    });
    expect((await s.api('POST', '/admin/v1/import', { timeout: '1m', dataOrgs: document('7001') })).status).toBe(200);
    expect((await s.api('POST', '/admin/v1/notifications/_search', {})).body.result).toEqual([]);
    expect((await s.api('POST', '/admin/v1/import', { timeout: '1m', notifyUsers: true, dataOrgs: document('7002') })).status).toBe(200);
    const { worker, mailDropDir } = outboxWorkerFor(s);
    await worker.runOnce();
    const mails = new Map((await readDroppedMail(mailDropDir)).map(({ mail }) => [mail.to && 'text' in mail.to ? mail.to.text : '', mail.subject]));
    expect(Object.fromEntries(mails)).toEqual({ '7002-unverified@example.com': 'Verify email', '7002-nopassword@example.com': 'Initialize User' });
  });
});

describeEachStore('message texts that would not render', (dialect) => {
  let s: OidcTestServer;
  beforeAll(async () => {
    s = await startOidcServer(dialect);
  }, 60_000);
  afterAll(() => s?.close());

  it("are refused at PUT naming the field, and reported in an import's errors instead of stored", async () => {
    for (const text of ['Hi {{.Password}}', 'Hi {{ .Code ', 'Hi {{range .LoginNames}}x{{end}}']) {
      const res = await s.api('PUT', '/admin/v1/text/message/verifyemail/en', { greeting: text });
      expect(res.status, text).toBe(400);
      expect(res.body.message, text).toMatch(/^invalid greeting: /);
    }
    const imported = await s.api('POST', '/admin/v1/import', {
      timeout: '1m',
      dataOrgs: {
        orgs: [
          {
            orgId: '7101',
            org: { name: `texts-${dialect}` },
            verifyEmailMessages: [{ language: 'en', text: 'Code {{.Secret}}' }],
            initMessages: [{ language: 'de', title: 'Hallo {{.DisplayName}}' }],
          },
        ],
      },
    });
    expect(imported.status).toBe(200);
    expect(imported.body.errors).toEqual([expect.objectContaining({ type: 'verify_email_message', id: '7101_en', message: expect.stringContaining('TEXT-t3mpl') })]);
    expect(await s.t.store.read.messageTexts.get('7101', 'VerifyEmail', 'en')).toBeUndefined();
    expect((await s.t.store.read.messageTexts.get('7101', 'InitCode', 'de'))?.fields).toEqual({ title: 'Hallo {{.DisplayName}}' });
  });
});
