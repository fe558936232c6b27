/**
 * Machine users' keys (ZITADEL's AddMachineKey, ListMachineKeys, GetMachineKeyByIDs,
 * RemoveMachineKey): the key file is returned once and its private key signs a JWT that verifies
 * with the stored public key (what the JWT-profile grant will read); only public data is listed;
 * the expiration is honoured; removal is at once and audited; human users, unknown users, callers
 * without authority over the user and unknown fields are refused with nothing written.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestInstance, describeEachStore, insertHumanUser, insertMachineUserWithToken, insertOrg, type TestInstance } from '../support/instance.js';

interface KeyFile {
  type: string;
  keyId: string;
  key: string;
  expirationDate: string;
  userId: string;
}

const AUDIENCE = 'http://localhost:8080';

describeEachStore('machine keys', (dialect) => {
  let t: TestInstance;
  const call = async (method: string, path: string, body?: unknown, token?: string) => {
    const res = await t.call(method, path, { body, token });
    return { status: res.status, body: await res.json() };
  };
  const keys = (userId: string) => `/management/v1/users/${userId}/keys`;
  const machine = async (orgId?: string) => (await insertMachineUserWithToken(t, { orgId })).userId;
  const addKey = async (userId: string, body: Record<string, unknown> = { type: 'KEY_TYPE_JSON' }) => {
    const res = await call('POST', keys(userId), body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { keyId: string; keyDetails?: string; details: { sequence: string; resourceOwner: string } };
  };
  const keyFileOf = (keyDetails: string) => JSON.parse(Buffer.from(keyDetails, 'base64').toString('utf8')) as KeyFile;
  /** RFC 7523 §2.1: iss = sub = the machine user, signed with its key, the key id in the header. */
  const jwtOf = (userId: string, keyId: string, privateKey: ReturnType<typeof createPrivateKey>) =>
    new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: keyId }).setIssuer(userId).setSubject(userId).setAudience(AUDIENCE).setIssuedAt().setExpirationTime('1m').sign(privateKey);
  const keyEvents = async (userId: string) =>
    (await t.store.read.events.search({ aggregateId: userId, eventTypes: ['user.machine.key.added', 'user.machine.key.removed'], limit: 100, offset: 0, asc: true })).events;

  beforeAll(async () => {
    t = await createTestInstance(dialect);
  });
  afterAll(() => t?.close());

  it('adds a key: the key file is shown once, and its private key signs a JWT that verifies with the stored public key', async () => {
    const userId = await machine();
    const added = await addKey(userId);
    expect(added).toEqual({ keyId: expect.stringMatching(/^\d+$/), keyDetails: expect.any(String), details: expect.objectContaining({ sequence: expect.any(String), resourceOwner: t.defaultOrgId }) });
    const file = keyFileOf(added.keyDetails!);
    expect(file).toEqual({ type: 'serviceaccount', keyId: added.keyId, key: expect.stringMatching(/^-----BEGIN RSA PRIVATE KEY-----\n/), expirationDate: '9999-12-31T23:59:59.000Z', userId });
    expect(Object.keys(file)).toEqual(['type', 'keyId', 'key', 'expirationDate', 'userId']);
    const privateKey = createPrivateKey(file.key);
    expect(privateKey.asymmetricKeyDetails?.modulusLength).toBe(2048);

    const stored = (await t.store.read.machineKeys.usableKeyWithUser(userId, added.keyId, new Date()))?.publicKey;
    expect(stored).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    const { payload, protectedHeader } = await jwtVerify(await jwtOf(userId, added.keyId, privateKey), createPublicKey(stored!), { issuer: userId, audience: AUDIENCE });
    expect(payload.sub).toBe(userId);
    expect(protectedHeader.kid).toBe(added.keyId);
    // Another key's JWT does not verify with this key.
    const other = keyFileOf((await addKey(userId)).keyDetails!);
    await expect(jwtVerify(await jwtOf(userId, other.keyId, createPrivateKey(other.key)), createPublicKey(stored!))).rejects.toThrow();

    // The event is the user's, carries the public key only.
    const [event] = await keyEvents(userId);
    expect(event).toMatchObject({ aggregateType: 'user', aggregateId: userId, type: 'user.machine.key.added', resourceOwner: t.defaultOrgId });
    expect(event.payload).toEqual({ keyId: added.keyId, type: 'KEY_TYPE_JSON', expirationDate: '9999-12-31T23:59:59.000Z', publicKey: stored });
    expect(String(event.sequence)).toBe(added.details.sequence);
  });

  it('list and get show the keys without any key material', async () => {
    const userId = await machine();
    const first = await addKey(userId, { type: 'KEY_TYPE_JSON', expirationDate: '2099-01-01T00:00:00Z' });
    const second = await addKey(userId);
    const view = (keyId: string, expirationDate: string) => ({
      id: keyId,
      details: { sequence: expect.any(String), creationDate: expect.any(String), changeDate: expect.any(String), resourceOwner: t.defaultOrgId },
      type: 'KEY_TYPE_JSON',
      expirationDate,
    });
    const list = await call('POST', `${keys(userId)}/_search`, {});
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      details: expect.objectContaining({ totalResult: '2' }),
      result: [view(first.keyId, '2099-01-01T00:00:00.000Z'), view(second.keyId, '9999-12-31T23:59:59.000Z')],
    });
    const newestFirst = await call('POST', `${keys(userId)}/_search`, { query: { asc: false, limit: 1 } });
    expect(newestFirst.body.result.map((k: { id: string }) => k.id)).toEqual([second.keyId]);
    expect(newestFirst.body.details.totalResult).toBe('2');

    const got = await call('GET', `${keys(userId)}/${first.keyId}`);
    expect(got).toEqual({ status: 200, body: { key: view(first.keyId, '2099-01-01T00:00:00.000Z') } });
    expect(JSON.stringify([list.body, got.body])).not.toMatch(/BEGIN|PRIVATE|publicKey|keyDetails/);

    expect((await call('GET', `${keys(userId)}/missing`)).body.details[0].id).toBe('QUERY-Dgr3g');
    expect((await call('GET', `${keys(userId)}/${'9'.repeat(201)}`)).status).toBe(400);
    // A human has no keys; an unknown user is not found.
    const human = (await insertHumanUser(t)).userId;
    expect((await call('POST', `${keys(human)}/_search`, {})).body).toEqual({ details: expect.objectContaining({ totalResult: '0' }), result: [] });
    expect((await call('POST', `${keys('missing')}/_search`, {})).status).toBe(404);
    expect((await call('GET', `${keys('missing')}/${first.keyId}`)).status).toBe(404);
    // Another user's key is not this user's.
    expect((await call('GET', `${keys(await machine())}/${first.keyId}`)).status).toBe(404);
  });

  it('honours the expiration: a past date is refused, a future one is listed and ends the key', async () => {
    const userId = await machine();
    const past = await call('POST', keys(userId), { type: 'KEY_TYPE_JSON', expirationDate: '2001-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body).toEqual({ code: 3, message: expect.stringContaining('ExpireBeforeNow'), details: [expect.objectContaining({ id: 'DOMAIN-dv3t5' })] });
    expect(await keyEvents(userId)).toEqual([]);

    const expiresAt = new Date(Date.now() + 60_000);
    const added = await addKey(userId, { type: 'KEY_TYPE_JSON', expirationDate: expiresAt.toISOString() });
    expect(keyFileOf(added.keyDetails!).expirationDate).toBe(expiresAt.toISOString());
    expect((await call('POST', `${keys(userId)}/_search`, {})).body.result[0].expirationDate).toBe(expiresAt.toISOString());
    expect((await t.store.read.machineKeys.usableKeyWithUser(userId, added.keyId, new Date()))?.publicKey).toBeDefined();
    expect((await t.store.read.machineKeys.usableKeyWithUser(userId, added.keyId, expiresAt))?.publicKey).toBeUndefined();
    expect((await t.store.read.machineKeys.usableKeyWithUser(userId, added.keyId, new Date(expiresAt.getTime() + 1)))?.publicKey).toBeUndefined();
    // Still listed after it expired: it shows its date.
    expect((await call('GET', `${keys(userId)}/${added.keyId}`)).status).toBe(200);
  });

  it('removes a key at once, with an event; a second removal is 404', async () => {
    const userId = await machine();
    const kept = await addKey(userId);
    const removed = await addKey(userId);
    const res = await call('DELETE', `${keys(userId)}/${removed.keyId}`);
    expect(res).toEqual({ status: 200, body: { details: expect.objectContaining({ sequence: expect.any(String), resourceOwner: t.defaultOrgId }) } });
    expect((await t.store.read.machineKeys.usableKeyWithUser(userId, removed.keyId, new Date()))?.publicKey).toBeUndefined();
    expect((await t.store.read.machineKeys.usableKeyWithUser(userId, kept.keyId, new Date()))?.publicKey).toBeDefined();
    expect((await call('GET', `${keys(userId)}/${removed.keyId}`)).status).toBe(404);
    expect((await call('POST', `${keys(userId)}/_search`, {})).body.result.map((k: { id: string }) => k.id)).toEqual([kept.keyId]);
    const events = await keyEvents(userId);
    expect(events.map((e) => e.type)).toEqual(['user.machine.key.added', 'user.machine.key.added', 'user.machine.key.removed']);
    expect(events[2].payload).toEqual({ keyId: removed.keyId });
    expect(String(events[2].sequence)).toBe(res.body.details.sequence);
    const again = await call('DELETE', `${keys(userId)}/${removed.keyId}`);
    expect(again.status).toBe(404);
    expect(again.body.details[0].id).toBe('COMMAND-4m77G');
    expect((await call('DELETE', `${keys('missing')}/${kept.keyId}`)).status).toBe(404);

    // RemoveUser takes the keys with it.
    expect((await call('DELETE', `/management/v1/users/${userId}`)).status).toBe(200);
    expect(await t.store.read.machineKeys.get(userId, kept.keyId)).toBeUndefined();
  });

  it('a human user is refused (400), an unknown user or one of another organisation is not found (404)', async () => {
    const human = (await insertHumanUser(t)).userId;
    const refused = await call('POST', keys(human), { type: 'KEY_TYPE_JSON' });
    expect(refused.status).toBe(400);
    expect(refused.body.details[0].id).toBe('COMMAND-Df2f1');
    expect(await keyEvents(human)).toEqual([]);
    const missing = await call('POST', keys('missing'), { type: 'KEY_TYPE_JSON' });
    expect(missing.status).toBe(404);
    expect(missing.body.details[0].id).toBe('COMMAND-bnipwm1');
    const elsewhere = await machine((await insertOrg(t, 'Elsewhere')).orgId);
    expect((await call('POST', keys(elsewhere), { type: 'KEY_TYPE_JSON' })).status).toBe(404);
    expect(await keyEvents(elsewhere)).toEqual([]);
  });

  it('a caller without authority over the user (ORG_USER_MANAGER against an ORG_OWNER machine user) gets 403, with nothing written', async () => {
    const manager = await insertMachineUserWithToken(t, { orgRoles: ['ORG_USER_MANAGER'] });
    const owner = await insertMachineUserWithToken(t, { orgRoles: ['ORG_OWNER'] });
    const existing = await addKey(owner.userId);
    const before = await keyEvents(owner.userId);

    const add = await call('POST', keys(owner.userId), { type: 'KEY_TYPE_JSON' }, manager.token);
    expect(add.status).toBe(403);
    expect(add.body.details[0].id).toBe('COMMAND-Auth0r');
    const remove = await call('DELETE', `${keys(owner.userId)}/${existing.keyId}`, undefined, manager.token);
    expect(remove.status).toBe(403);
    expect(remove.body.details[0].id).toBe('COMMAND-Auth0r');
    expect(await keyEvents(owner.userId)).toEqual(before);
    expect((await t.store.read.machineKeys.listByUser(owner.userId, { offset: 0, limit: 100, asc: true })).rows.map((k) => k.id)).toEqual([existing.keyId]);
    expect((await t.store.read.events.search({ creator: manager.userId, limit: 10, offset: 0, asc: true })).events).toEqual([]);

    // Reading needs user.read only; a plain machine user and its own keys are the manager's to manage.
    expect((await call('POST', `${keys(owner.userId)}/_search`, {}, manager.token)).status).toBe(200);
    expect((await call('POST', keys(await machine()), { type: 'KEY_TYPE_JSON' }, manager.token)).status).toBe(200);
    expect((await call('POST', keys(manager.userId), { type: 'KEY_TYPE_JSON' }, manager.token)).status).toBe(200);
    // Without user.write: 403 before anything is looked at.
    const viewer = await insertMachineUserWithToken(t, { orgRoles: ['ORG_OWNER_VIEWER'] });
    expect((await call('POST', keys(await machine()), { type: 'KEY_TYPE_JSON' }, viewer.token)).status).toBe(403);
    expect((await call('POST', `${keys(owner.userId)}/_search`, {}, viewer.token)).status).toBe(200);
  });

  it('bad input → 400, nothing written: unknown fields, a missing or unspecified type, a malformed date', async () => {
    const userId = await machine();
    const extra = await call('POST', keys(userId), { type: 'KEY_TYPE_JSON', extra: 1 });
    expect(extra.status).toBe(400);
    expect(extra.body.message).toContain('extra');
    expect((await call('POST', keys(userId), {})).status).toBe(400);
    expect((await call('POST', keys(userId), { type: 'KEY_TYPE_UNSPECIFIED' })).status).toBe(400);
    expect((await call('POST', keys(userId), { type: 'KEY_TYPE_JSON', expirationDate: 'tomorrow' })).status).toBe(400);
    expect((await call('POST', `${keys(userId)}/_search`, { query: { limit: 5000 } })).status).toBe(400);
    expect((await call('POST', `${keys(userId)}/_search`, { other: true })).status).toBe(400);
    expect(await keyEvents(userId)).toEqual([]);
  });

  it('import: a machine key without its public key is reported in errors and not imported (keys with one: imported-keys.test.ts)', async () => {
    const orgId = `${Date.now() % 1_000_000_000}3`;
    const machineKey = { keyId: '4243', userId: 'imported-robot', type: 'KEY_TYPE_JSON', expirationDate: '2099-01-01T00:00:00Z' };
    const org = { orgId, org: { name: `Moved keys ${orgId}` }, machineUsers: [{ userId: 'imported-robot', user: { userName: 'imported-robot', name: 'Robot' } }], machineKeys: [machineKey] };
    const imported = await call('POST', '/admin/v1/import', { timeout: '1m', dataOrgs: { orgs: [org] } });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body.errors).toEqual([{ type: 'machine_user_key', id: '4243', message: expect.stringContaining('IMPORT-k3yPb') }]);
    expect((await t.store.read.machineKeys.listByUser('imported-robot', { offset: 0, limit: 10, asc: true })).total).toBe(0);
  });

  it('with its own public key, the caller gets no key file, and JWTs signed with its private key verify', async () => {
    const userId = await machine();
    const own = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = own.publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const added = await call('POST', keys(userId), { type: 'KEY_TYPE_JSON', publicKey: Buffer.from(pem).toString('base64') });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body).toEqual({ keyId: expect.any(String), details: expect.any(Object) });
    const stored = (await t.store.read.machineKeys.usableKeyWithUser(userId, added.body.keyId, new Date()))?.publicKey;
    expect(stored).toBe(pem);
    await jwtVerify(await jwtOf(userId, added.body.keyId, own.privateKey), createPublicKey(stored!));

    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const refusedWith = async (publicKey: string) => {
      const res = await call('POST', keys(userId), { type: 'KEY_TYPE_JSON', publicKey });
      expect(res.status, publicKey.slice(0, 40)).toBe(400);
      return res.body.details[0].id as string;
    };
    // A private key is never taken for a public one; nor another PEM type, another algorithm, a short key, no base64.
    expect(await refusedWith(b64(own.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string))).toBe('COMMAND-5F3h1');
    expect(await refusedWith(b64(own.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string))).toBe('COMMAND-5F3h1');
    expect(await refusedWith(b64(own.publicKey.export({ type: 'pkcs1', format: 'pem' }) as string))).toBe('COMMAND-5F3h1');
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }) as string;
    expect(await refusedWith(b64(ec))).toBe('COMMAND-5F3h1');
    const short = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }) as string;
    expect(await refusedWith(b64(short))).toBe('COMMAND-5F3h1');
    expect(await refusedWith(b64('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----'))).toBe('COMMAND-5F3h1');
    expect(await refusedWith('not base64!')).toBe('COMMAND-5F3h1');
    expect((await keyEvents(userId)).length).toBe(1);
  });
});
