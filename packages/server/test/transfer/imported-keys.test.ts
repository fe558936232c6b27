/**
 * Keys survive a move (issue 29): a ZITADEL document's `machineKeys` and `appKeys` (public keys,
 * in ZITADEL's shapes: reference Appendix A, `DataMachineKey` and `DataAppKey`; the key pairs are
 * made here, as no published document carries keys) are imported with their ids and expirations;
 * a key file made before the move authenticates the API application at introspection with
 * private_key_jwt through openid-client, against the real server on loopback; a re-run adds
 * nothing; the export carries keys only with `withKeys`, and its document moves them again. Both
 * stores. A machine key file made before the move gets a token after it through the JWT-profile
 * grant, with @zitadel/node's ServiceAccount unchanged.
 */
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { ServiceAccount } from '@zitadel/node/dist/credentials/index.js';
import { importPKCS8 } from 'jose';
import * as oc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachStore } from '../support/instance.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const options = { execute: [oc.allowInsecureRequests] };
const FUTURE = '2099-01-01T00:00:00Z';

function rsaPair() {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    /** As ZITADEL's documents carry it: base64 of the PEM. */
    documentKey: Buffer.from(publicKey.export({ type: 'spki', format: 'pem' }) as string).toString('base64'),
    pkcs8: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
  };
}

describeEachStore('imported machine and application keys', (dialect) => {
  let s: OidcTestServer;
  const orgId = `${Date.now() % 1_000_000_000}5`;
  const inOrg = { 'x-service-orgid': orgId };
  const machineKey = rsaPair();
  const appKey = rsaPair();
  const stranger = rsaPair();
  /** The client id ZITADEL gave the application: only its keys' entries name it. */
  const clientId = `263${orgId}@resource-server`;
  const document = () => ({
    orgs: [
      {
        orgId,
        org: { name: `Moved ${orgId}` },
        machineUsers: [{ userId: `${orgId}01`, user: { userName: 'robot', name: 'Robot' } }],
        projects: [{ projectId: `${orgId}02`, project: { name: 'api' } }],
        apiApps: [{ appId: `${orgId}03`, app: { projectId: `${orgId}02`, name: 'resource-server', authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' } }],
        machineKeys: [
          { keyId: `${orgId}11`, userId: `${orgId}01`, type: 'KEY_TYPE_JSON', expirationDate: FUTURE, publicKey: machineKey.documentKey },
          { keyId: `${orgId}12`, userId: 'not-in-the-document', type: 'KEY_TYPE_JSON', expirationDate: FUTURE, publicKey: stranger.documentKey },
          { keyId: `${orgId}13`, userId: `${orgId}01`, type: 'KEY_TYPE_JSON', expirationDate: '2001-01-01T00:00:00Z', publicKey: stranger.documentKey },
        ],
        appKeys: [
          { id: `${orgId}21`, projectId: `${orgId}02`, appId: `${orgId}03`, clientId, type: 'KEY_TYPE_JSON', expirationDate: FUTURE, publicKey: appKey.documentKey },
          { id: `${orgId}22`, projectId: `${orgId}02`, appId: 'no-such-app', clientId, type: 'KEY_TYPE_JSON', expirationDate: FUTURE, publicKey: stranger.documentKey },
        ],
      },
    ],
  });
  /** openid-client as a resource server holding the application's key file (kid = the key id, iss = sub = the client id). */
  const introspector = async (server: OidcTestServer, pkcs8: string, kid: string) =>
    oc.discovery(new URL(server.issuer), clientId, undefined, oc.PrivateKeyJwt({ key: await importPKCS8(pkcs8, 'RS256'), kid }), options);
  /** An opaque access token of a machine user of the server's default organisation (client credentials). */
  const someToken = async (server: OidcTestServer) => {
    const robot = (await server.api('POST', '/management/v1/users/machine', { userName: `cc-${Date.now()}`, name: 'CC' })).body.userId;
    const secret = (await server.api('PUT', `/management/v1/users/${robot}/secret`)).body;
    const config = await oc.discovery(new URL(server.issuer), secret.clientId, undefined, oc.ClientSecretBasic(secret.clientSecret), options);
    return (await oc.clientCredentialsGrant(config, { scope: 'openid' })).access_token;
  };

  beforeAll(async () => {
    s = await startOidcServer(dialect);
  }, 60_000);
  afterAll(() => s?.close());

  it('imports both kinds with their ids and expirations; what cannot be imported is reported with its reason; a re-run adds nothing', async () => {
    const imported = await s.api('POST', '/admin/v1/import', { timeout: '1m', dataOrgs: document() });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body.success.orgs[0]).toMatchObject({ machineKeys: [`${orgId}11`], appKeys: [`${orgId}21`] });
    expect(imported.body.errors).toEqual([
      { type: 'machine_user_key', id: `${orgId}12`, message: expect.stringMatching(/^ID=COMMAND-Dggw2 Message=Errors.User.NotFound: not-in-the-document is no machine user/) },
      { type: 'machine_user_key', id: `${orgId}13`, message: expect.stringContaining('Errors.AuthNKey.ExpireBeforeNow') },
      { type: 'app_key', id: `${orgId}22`, message: expect.stringContaining('Errors.Project.App.NotFound') },
    ]);

    const machineKeys = await s.api('POST', `/management/v1/users/${orgId}01/keys/_search`, {}, undefined, inOrg);
    expect(machineKeys.body.result).toEqual([expect.objectContaining({ id: `${orgId}11`, type: 'KEY_TYPE_JSON', expirationDate: '2099-01-01T00:00:00.000Z' })]);
    const appKeys = await s.api('POST', `/management/v1/projects/${orgId}02/apps/${orgId}03/keys/_search`, {}, undefined, inOrg);
    expect(appKeys.body.result).toEqual([expect.objectContaining({ id: `${orgId}21`, type: 'KEY_TYPE_JSON', expirationDate: '2099-01-01T00:00:00.000Z' })]);
    // The application keeps the client id its keys name, so the key files still match it.
    expect((await s.api('GET', `/management/v1/projects/${orgId}02/apps/${orgId}03`, undefined, undefined, inOrg)).body.app.apiConfig.clientId).toBe(clientId);
    // Imported as other imported things are: no event per key, counted in the organisation's import event.
    const events = await s.api('POST', '/admin/v1/events/_search', { aggregateId: `${orgId}01`, eventTypes: ['user.machine.key.added'] });
    expect(events.body.events ?? []).toEqual([]);
    const orgEvents = await s.api('POST', '/admin/v1/events/_search', { aggregateId: orgId, eventTypes: ['org.data.imported'] });
    expect(orgEvents.body.events[0].payload).toMatchObject({ machineKeys: 1, appKeys: 1 });

    const again = await s.api('POST', '/admin/v1/import', { timeout: '1m', dataOrgs: document() });
    expect(again.status).toBe(200);
    expect(again.body.success.orgs[0].machineKeys).toBeUndefined();
    expect(again.body.success.orgs[0].appKeys).toBeUndefined();
    expect(again.body.errors).toEqual(
      expect.arrayContaining([
        { type: 'machine_user_key', id: `${orgId}11`, message: 'ID=COMMAND-091mops Message=Errors.User.Machine.Key.AlreadyExists' },
        { type: 'app_key', id: `${orgId}21`, message: expect.stringContaining('Errors.Project.App.Key.AlreadyExisting') },
      ]),
    );
    expect((await s.api('POST', `/management/v1/users/${orgId}01/keys/_search`, {}, undefined, inOrg)).body.result).toHaveLength(1);
    expect((await s.api('POST', `/management/v1/projects/${orgId}02/apps/${orgId}03/keys/_search`, {}, undefined, inOrg)).body.result).toHaveLength(1);
    // The machine key is the document's public key.
    const stored = (await s.t.store.read.machineKeys.usableKeyWithUser(`${orgId}01`, `${orgId}11`, new Date()))?.publicKey;
    expect(createPublicKey(stored!).equals(createPublicKey(Buffer.from(machineKey.documentKey, 'base64').toString()))).toBe(true);
  });

  it('a key file made before the move authenticates the application at introspection (private_key_jwt, openid-client); another key does not', async () => {
    const token = await someToken(s);
    const answer = await oc.tokenIntrospection(await introspector(s, appKey.pkcs8, `${orgId}21`), token);
    expect(answer.active).toBe(true);
    await expect(oc.tokenIntrospection(await introspector(s, stranger.pkcs8, `${orgId}21`), token)).rejects.toMatchObject({ error: 'invalid_client' });
  });

  it("a machine key file made before the move gets a token after it (@zitadel/node's ServiceAccount, the JWT-profile grant); another key does not", async () => {
    const keyFile = (pkcs8: string) => ({ type: 'serviceaccount', keyId: `${orgId}11`, key: pkcs8, userId: `${orgId}01` });
    const token = await ServiceAccount.fromJson(keyFile(machineKey.pkcs8)).authenticate(s.issuer);
    const answer = await oc.tokenIntrospection(await introspector(s, appKey.pkcs8, `${orgId}21`), token);
    expect(answer).toMatchObject({ active: true, sub: `${orgId}01` });
    await expect(ServiceAccount.fromJson(keyFile(stranger.pkcs8)).authenticate(s.issuer)).rejects.toMatchObject({ response: { status: 400, data: { error: 'invalid_grant' } } });
  });

  it('the export leaves keys out unless withKeys asks; its document moves them again, and the key file works there', async () => {
    const plain = await s.api('POST', '/admin/v1/export', { org_ids: [orgId], timeout: '1m', response_output: true });
    expect(plain.status).toBe(200);
    expect(plain.body.orgs[0].machineKeys).toBeUndefined();
    expect(plain.body.orgs[0].appKeys).toBeUndefined();

    const withKeys = await s.api('POST', '/admin/v1/export', { org_ids: [orgId], with_keys: true, timeout: '1m', response_output: true });
    const org = withKeys.body.orgs[0];
    expect(org.machineKeys).toEqual([{ keyId: `${orgId}11`, userId: `${orgId}01`, type: 'KEY_TYPE_JSON', expirationDate: '2099-01-01T00:00:00.000Z', publicKey: expect.any(String) }]);
    expect(org.appKeys).toEqual([
      { id: `${orgId}21`, projectId: `${orgId}02`, appId: `${orgId}03`, clientId, type: 'KEY_TYPE_JSON', expirationDate: '2099-01-01T00:00:00.000Z', publicKey: expect.any(String) },
    ]);
    const exportedPem = Buffer.from(org.appKeys[0].publicKey, 'base64').toString();
    expect(exportedPem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(createPublicKey(exportedPem).equals(createPublicKey(Buffer.from(appKey.documentKey, 'base64').toString()))).toBe(true);
    expect(JSON.stringify(withKeys.body)).not.toMatch(/PRIVATE KEY/);

    const target = await startOidcServer(dialect);
    try {
      const imported = await target.api('POST', '/admin/v1/import', { timeout: '1m', dataOrgs: withKeys.body });
      expect(imported.body.errors ?? [], JSON.stringify(imported.body.errors)).toEqual([]);
      expect(imported.body.success.orgs[0]).toMatchObject({ machineKeys: [`${orgId}11`], appKeys: [`${orgId}21`] });
      const answer = await oc.tokenIntrospection(await introspector(target, appKey.pkcs8, `${orgId}21`), await someToken(target));
      expect(answer.active).toBe(true);
    } finally {
      await target.close();
    }
  });
});
