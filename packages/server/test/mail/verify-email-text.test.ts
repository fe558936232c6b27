import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestInstance, describeEachStore, insertMachineUserWithToken, type TestInstance } from '../support/instance.js';

const PATH = '/admin/v1/text/message/verifyemail';

describeEachStore('verify-email message text (description §4.1)', (dialect) => {
  let t: TestInstance;
  beforeAll(async () => {
    t = await createTestInstance(dialect);
  });
  afterAll(() => t.close());

  it('stores a text and returns details from the event log', async () => {
    const res = await t.call('PUT', `${PATH}/en`, { body: { title: 'Hi' } });
    expect(res.status).toBe(200);
    const { details } = await res.json();
    expect(details.sequence).toMatch(/^\d+$/);
    expect(details.resourceOwner).toBe(t.instanceId);
    expect(Date.parse(details.changeDate)).not.toBeNaN();

    const get = await t.call('GET', `${PATH}/en`);
    expect(get.status).toBe(200);
    const { customText } = await get.json();
    expect(customText).toMatchObject({ title: 'Hi', isDefault: false });
    expect(customText.details.sequence).toBe(details.sequence);
    expect(customText.text).toBeUndefined();

    const events = await t.store.read.events.search({ aggregateId: t.instanceId, limit: 1, offset: 0, asc: false });
    expect(events.events[0]).toMatchObject({ type: 'instance.customtext.set', creator: t.adminUserId, sequence: Number(details.sequence) });
  });

  it('rejects a 201-character title with 400 naming the field and leaves the text unchanged', async () => {
    await t.call('PUT', `${PATH}/de`, { body: { title: 'Vorher' } });
    const res = await t.call('PUT', `${PATH}/de`, { body: { title: 'x'.repeat(201), text: 'changed' } });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe(3);
    expect(body.message).toContain('title');
    expect(body.details[0]['@type']).toBe('type.googleapis.com/zitadel.v1.ErrorDetail');
    const { customText } = await (await t.call('GET', `${PATH}/de`)).json();
    expect(customText.title).toBe('Vorher');
    expect(customText.text).toBeUndefined();
  });

  it('enforces the per-field limits of description §2.2', async () => {
    const ok = await t.call('PUT', `${PATH}/fr`, { body: { title: 't'.repeat(200), text: 'x'.repeat(800), footerText: 'f'.repeat(2000) } });
    expect(ok.status).toBe(200);
    for (const [field, max] of [
      ['preHeader', 200],
      ['subject', 200],
      ['greeting', 200],
      ['buttonText', 200],
      ['text', 800],
    ] as const) {
      const res = await t.call('PUT', `${PATH}/fr`, { body: { [field]: 'y'.repeat(max + 1) } });
      expect(res.status, field).toBe(400);
      expect((await res.json()).message).toContain(field);
    }
    const res = await t.call('PUT', `${PATH}/fr`, { body: { title: 42 } });
    expect(res.status).toBe(400);
  });

  it('answers 400 for unsupported or malformed languages and writes nothing', async () => {
    for (const lang of ['xx', 'en-US', '12', 'und']) {
      const res = await t.call('PUT', `${PATH}/${lang}`, { body: { title: 'Hi' } });
      expect(res.status, lang).toBe(400);
      const body = await res.json();
      expect(['LANG-lg4DP', 'LANG-3M9f2']).toContain(body.details[0].id);
    }
    expect(await t.store.read.messageTexts.get(t.instanceId, 'VerifyEmail', 'xx')).toBeUndefined();
  });

  it('accepts the language in any letter case', async () => {
    expect((await t.call('PUT', `${PATH}/IT`, { body: { subject: 'Ciao' } })).status).toBe(200);
    const { customText } = await (await t.call('GET', `${PATH}/it`)).json();
    expect(customText.subject).toBe('Ciao');
  });

  it('clears omitted fields (full replacement, reference §1.3)', async () => {
    await t.call('PUT', `${PATH}/nl`, { body: { title: 'A', subject: 'B' } });
    await t.call('PUT', `${PATH}/nl`, { body: { subject: 'C' } });
    const { customText } = await (await t.call('GET', `${PATH}/nl`)).json();
    expect(customText.title).toBeUndefined();
    expect(customText.subject).toBe('C');
  });

  it('writes no event when nothing changes, and still answers 200', async () => {
    const first = await (await t.call('PUT', `${PATH}/sv`, { body: { title: 'Same' } })).json();
    const second = await t.call('PUT', `${PATH}/sv`, { body: { title: 'Same' } });
    expect(second.status).toBe(200);
    expect((await second.json()).details.sequence).toBe(first.details.sequence);
  });

  it('returns the built-in default where nothing is set', async () => {
    const { customText } = await (await t.call('GET', `${PATH}/ja`)).json();
    expect(customText.isDefault).toBe(true);
    const en = await (await t.call('GET', '/admin/v1/text/default/message/verifyemail/en')).json();
    expect(en.customText).toMatchObject({
      title: 'Verify email',
      greeting: 'Hello {{.DisplayName}},',
      buttonText: 'Verify email',
      isDefault: true,
    });
    expect(en.customText.text).toContain('{{.Code}}');
    const de = await (await t.call('GET', '/admin/v1/text/default/message/verifyemail/de')).json();
    expect(de.customText.greeting).toBe('Hallo {{.DisplayName}},');
  });

  it('the default endpoint ignores the stored text', async () => {
    const { customText } = await (await t.call('GET', '/admin/v1/text/default/message/verifyemail/en')).json();
    expect(customText.title).toBe('Verify email');
  });

  it('resets to the default; a second reset answers 404', async () => {
    await t.call('PUT', `${PATH}/pl`, { body: { title: 'Cześć' } });
    const reset = await t.call('DELETE', `${PATH}/pl`);
    expect(reset.status).toBe(200);
    expect((await reset.json()).details.sequence).toMatch(/^\d+$/);
    const { customText } = await (await t.call('GET', `${PATH}/pl`)).json();
    expect(customText.isDefault).toBe(true);
    const again = await t.call('DELETE', `${PATH}/pl`);
    expect(again.status).toBe(404);
    expect((await again.json()).details[0].id).toBe('INSTANCE-fju90');
  });

  it('lists the supported languages', async () => {
    const res = await t.call('GET', '/admin/v1/languages');
    expect(res.status).toBe(200);
    const { languages } = await res.json();
    expect(languages).toContain('en');
    expect(languages).toContain('de');
    expect(languages).toHaveLength(20);
  });

  it('requires iam.policy.write: an org owner gets 403, an instance viewer may read but not write', async () => {
    const orgOwner = await insertMachineUserWithToken(t, { orgRoles: ['ORG_OWNER'] });
    const denied = await t.call('PUT', `${PATH}/en`, { token: orgOwner.token, body: { title: 'nope' } });
    expect(denied.status).toBe(403);
    expect((await denied.json()).code).toBe(7);

    const viewer = await insertMachineUserWithToken(t, { instanceRoles: ['IAM_OWNER_VIEWER'] });
    expect((await t.call('GET', `${PATH}/en`, { token: viewer.token })).status).toBe(200);
    expect((await t.call('PUT', `${PATH}/en`, { token: viewer.token, body: { title: 'nope' } })).status).toBe(403);
    expect((await t.call('DELETE', `${PATH}/en`, { token: viewer.token })).status).toBe(403);
    const { customText } = await (await t.call('GET', `${PATH}/en`)).json();
    expect(customText.title).not.toBe('nope');
  });
});
