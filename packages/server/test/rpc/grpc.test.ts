/**
 * ZITADEL's v1 services over gRPC (HTTP/2), gRPC-web and Connect (issue 28), each RPC through its
 * REST twin (src/rpc/): real clients over the network — connect-node's three transports and
 * ZITADEL's own Node SDK (@zitadel/node, nice-grpc) — against the whole service on a loopback
 * port, on both stores.
 *
 * gRPC needs HTTP/2 with prior knowledge, which the service's one port speaks beside HTTP/1.1
 * (src/transport/http-server.ts): the HTTP/2 clients use the same port as the others.
 */
import { request as httpRequest } from 'node:http';
import http2 from 'node:http2';
import { create, type DescService, fromBinary, toBinary } from '@bufbuild/protobuf';
import { type Client, Code, ConnectError, createClient, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { createAccessTokenInterceptor, createAdminClient, createManagementClient } from '@zitadel/node/dist/api/index.js';
import { AdminService, GetCustomVerifyEmailMessageTextRequestSchema, GetCustomVerifyEmailMessageTextResponseSchema } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { ErrorDetailSchema } from '@zitadel/proto/zitadel/message_pb.js';
import { Metadata } from 'nice-grpc-common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, type OperationId } from '../../src/http/generated/operations.gen.js';
import { createLogger } from '../../src/log.js';
import { RPC_SERVICES, rpcTable } from '../../src/rpc/offered-rpcs.js';
import { describeEachStore, insertMachineUserWithToken } from '../support/instance.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

const MAX_BODY_BYTES = 64 * 1024;
const MAX_IMPORT_BODY_BYTES = 256 * 1024;

/** The service's own port when it speaks HTTP/2 with prior knowledge, else an HTTP/2 server of the test around its handler. */
/** The service's own port, which speaks HTTP/2 with prior knowledge beside HTTP/1.1 (src/transport/http-server.ts). */
async function h2cBase(s: OidcTestServer): Promise<{ base: string; close: () => Promise<void> }> {
  expect(await speaksH2c(s.issuer)).toBe(true);
  return { base: s.issuer, close: async () => undefined };
}

async function speaksH2c(base: string): Promise<boolean> {
  return new Promise((resolve) => {
    const session = http2.connect(base);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      session.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), 1_000);
    session.once('remoteSettings', () => done(true));
    session.once('error', () => done(false));
    session.once('close', () => done(false));
  });
}

type Protocol = 'Connect JSON' | 'Connect binary' | 'gRPC-web' | 'gRPC';
const PROTOCOLS: Protocol[] = ['Connect JSON', 'Connect binary', 'gRPC-web', 'gRPC'];

function transportFor(protocol: Protocol, http1Base: string, h2Base: string): Transport {
  switch (protocol) {
    case 'Connect JSON':
      return createConnectTransport({ baseUrl: http1Base, httpVersion: '1.1' });
    case 'Connect binary':
      return createConnectTransport({ baseUrl: http1Base, httpVersion: '1.1', useBinaryFormat: true });
    case 'gRPC-web':
      return createGrpcWebTransport({ baseUrl: http1Base, httpVersion: '1.1', useBinaryFormat: true });
    case 'gRPC':
      return createGrpcTransport({ baseUrl: h2Base });
  }
}

/** The call's error, as the client reads it. */
async function failure(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error('the call succeeded');
}

/**
 * Operations that share a name with a ZITADEL RPC of their service but not its REST path, so no RPC
 * reaches them. ZITADEL's UpdateLockoutPolicy is `PUT /admin/v1/policies/password/lockout`; the
 * spec has `PUT /admin/v1/policies/lockout` (reported to the coordinator).
 */
const KNOWN_PATH_DIFFERENCES = ['UpdateLockoutPolicy'];

const restPrefixOf = (service: DescService) => RPC_SERVICES.find((s) => s.service === service)!.restPrefix;

/** A value for a path variable: a language where the template wants one, else an id. */
const pathValue = (template: string, name: string) => (name === 'language' ? 'de' : template.includes('/metadata/') && name === 'key' ? 'k' : '123456789');

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describeEachStore('ZITADEL RPCs over gRPC, gRPC-web and Connect', (dialect) => {
  let s: OidcTestServer;
  let target: OidcTestServer;
  let h2: Awaited<ReturnType<typeof h2cBase>>;
  let targetH2: Awaited<ReturnType<typeof h2cBase>>;
  const logLines: Record<string, unknown>[] = [];
  let orgB: string;
  let projectB: string;
  let userB: string;

  beforeAll(async () => {
    const logger = createLogger('info', (line) => void logLines.push(JSON.parse(line)));
    s = await startOidcServer(dialect, { maxBodyBytes: MAX_BODY_BYTES, maxImportBodyBytes: MAX_IMPORT_BODY_BYTES, logger });
    target = await startOidcServer(dialect, { maxImportBodyBytes: MAX_IMPORT_BODY_BYTES, maxConcurrentImports: 1 });
    h2 = await h2cBase(s);
    targetH2 = await h2cBase(target);
    const org = await s.api('POST', '/management/v1/orgs', { name: 'Org B' });
    expect(org.status, JSON.stringify(org.body)).toBe(200);
    orgB = org.body.id;
    const inB = { 'x-zitadel-orgid': orgB };
    projectB = (await s.api('POST', '/management/v1/projects', { name: 'shop' }, undefined, inB)).body.id;
    expect((await s.api('POST', `/management/v1/projects/${projectB}/roles`, { roleKey: 'reader', displayName: 'Reader' }, undefined, inB)).status).toBe(200);
    const user = await s.api(
      'POST',
      '/management/v1/users/human/_import',
      { userName: 'bea', profile: { firstName: 'Bea', lastName: 'B' }, email: { email: 'bea@example.com', isEmailVerified: true } },
      undefined,
      inB,
    );
    expect(user.status, JSON.stringify(user.body)).toBe(200);
    userB = user.body.userId;
  }, 120_000);
  afterAll(async () => {
    await h2?.close();
    await targetH2?.close();
    await s?.close();
    await target?.close();
  });

  describe.each(PROTOCOLS)('%s', (protocol) => {
    let admin: Client<typeof AdminService>;
    let management: Client<typeof ManagementService>;
    let targetAdmin: Client<typeof AdminService>;
    const as = () => ({ headers: bearer(s.t.adminToken) });
    beforeAll(() => {
      admin = createClient(AdminService, transportFor(protocol, s.issuer, h2.base));
      management = createClient(ManagementService, transportFor(protocol, s.issuer, h2.base));
      targetAdmin = createClient(AdminService, transportFor(protocol, target.issuer, targetH2.base));
    });

    it('4.1: sets the default verify-email text and reads it back', async () => {
      const title = `Verify (${protocol})`;
      const set = await admin.setDefaultVerifyEmailMessageText({ language: 'de', title, text: 'Hallo {{.DisplayName}}', buttonText: 'Los' }, as());
      expect(set.details?.sequence).toBeGreaterThan(0n);
      expect(set.details?.changeDate).toBeDefined();
      const custom = await admin.getCustomVerifyEmailMessageText({ language: 'de' }, as());
      expect(custom.customText).toMatchObject({ title, text: 'Hallo {{.DisplayName}}', buttonText: 'Los', isDefault: false });
      // The same text as the REST API shows it: one implementation.
      const rest = await s.api('GET', '/admin/v1/text/message/verifyemail/de');
      expect(rest.body.customText.title).toBe(title);
      const fallback = await admin.getDefaultVerifyEmailMessageText({ language: 'en' }, as());
      expect(fallback.customText?.title).toBeTruthy();
    });

    it('4.2: adds and removes a user grant in the organisation named in x-zitadel-orgid', async () => {
      const inB = { headers: { ...bearer(s.t.adminToken), 'x-zitadel-orgid': orgB } };
      const added = await management.addUserGrant({ userId: userB, projectId: projectB, roleKeys: ['reader'] }, inB);
      expect(added.userGrantId).toMatch(/^\d+$/);
      expect(added.details?.resourceOwner).toBe(orgB);
      const removed = await management.removeUserGrant({ userId: userB, grantId: added.userGrantId }, inB);
      expect(removed.details?.resourceOwner).toBe(orgB);
      // Removed: a second removal finds nothing (5) and the ZITADEL error detail carries the id.
      const again = await failure(management.removeUserGrant({ userId: userB, grantId: added.userGrantId }, inB));
      expect(again.code).toBe(Code.NotFound);
      expect(again.findDetails(ErrorDetailSchema)[0]?.id).toBeTruthy();
    });

    it('4.3: adds a JWT identity provider to the organisation', async () => {
      const added = await management.addOrgJWTIDP(
        { name: `jwt ${protocol}`, jwtEndpoint: 'https://jwt.example.com/jwt', issuer: 'https://jwt.example.com', keysEndpoint: 'https://jwt.example.com/keys', headerName: 'x-jwt' },
        { headers: { ...bearer(s.t.adminToken), 'x-zitadel-orgid': orgB } },
      );
      expect(added.idpId).toMatch(/^\d+$/);
      expect(added.details?.resourceOwner).toBe(orgB);
      const rest = await s.api('GET', `/management/v1/idps/${added.idpId}`, undefined, undefined, { 'x-zitadel-orgid': orgB });
      expect(rest.status).toBe(200);
      // An audience set over REST (ZITADEL's messages have no field for it) survives an update over this protocol.
      const config = { jwtEndpoint: 'https://jwt.example.com/jwt', issuer: 'https://jwt.example.com', keysEndpoint: 'https://jwt.example.com/keys', headerName: 'x-jwt' };
      const audience = 'https://identity.example.com';
      expect((await s.api('PUT', `/management/v1/idps/${added.idpId}/jwt_config`, { ...config, audience }, undefined, { 'x-zitadel-orgid': orgB })).status).toBe(200);
      await management.updateOrgIDPJWTConfig({ idpId: added.idpId, ...config, headerName: 'x-other' }, { headers: { ...bearer(s.t.adminToken), 'x-zitadel-orgid': orgB } });
      const after = await s.api('GET', `/management/v1/idps/${added.idpId}`, undefined, undefined, { 'x-zitadel-orgid': orgB });
      expect(after.body.idp.jwtConfig).toMatchObject({ headerName: 'x-other', audience });
    });

    it('exports an organisation and imports it into a second instance', async () => {
      const name = `Moved ${protocol}`;
      const org = await s.api('POST', '/management/v1/orgs', { name });
      const exported = await admin.exportData({ orgIds: [org.body.id], responseOutput: true, timeout: '1m' }, as());
      expect(exported.orgs.map((o) => o.orgId)).toEqual([org.body.id]);
      expect(exported.orgs[0].org?.name).toBe(name);
      const imported = await targetAdmin.importData({ data: { case: 'dataOrgs', value: { orgs: exported.orgs } }, timeout: '1m' }, { headers: bearer(target.t.adminToken) });
      expect(imported.success?.orgs.map((o) => o.orgId)).toEqual([org.body.id]);
      const there = await target.api('GET', '/management/v1/orgs/me', undefined, undefined, { 'x-zitadel-orgid': org.body.id });
      expect(there.body.org?.name).toBe(name);
    });

    it('refuses a caller without the permission (7), a bad token (16), a bad field (3), a missing grant (5)', async () => {
      const nobody = await insertMachineUserWithToken(s.t, {});
      const denied = await failure(admin.setDefaultVerifyEmailMessageText({ language: 'de', title: 'x' }, { headers: bearer(nobody.token) }));
      expect(denied.code).toBe(Code.PermissionDenied);
      expect(denied.findDetails(ErrorDetailSchema)[0]?.id).toMatch(/\S+-\S+/);

      const badToken = await failure(admin.setDefaultVerifyEmailMessageText({ language: 'de', title: 'x' }, { headers: bearer('not-a-token') }));
      expect(badToken.code).toBe(Code.Unauthenticated);

      const invalid = await failure(admin.setDefaultVerifyEmailMessageText({ language: 'de', title: 'x'.repeat(201) }, as()));
      expect(invalid.code).toBe(Code.InvalidArgument);
      expect(invalid.rawMessage).toMatch(/title/);
      const detail = invalid.findDetails(ErrorDetailSchema)[0];
      expect(detail?.id).toBe('API-V4l1d');
      expect(invalid.rawMessage).toBe(`${detail?.message} (${detail?.id})`);

      const missing = await failure(management.removeUserGrant({ userId: userB, grantId: '123456789' }, { headers: { ...bearer(s.t.adminToken), 'x-zitadel-orgid': orgB } }));
      expect(missing.code).toBe(Code.NotFound);
    });

    it('answers UNIMPLEMENTED naming an RPC the service does not offer', async () => {
      const error = await failure(admin.getMyInstance({}, as()));
      expect(error.code).toBe(Code.Unimplemented);
      expect(error.rawMessage).toContain('zitadel.admin.v1.AdminService/GetMyInstance is not offered by this service');
    });

    it('refuses a request message past the body limit (8), and an import past its own', async () => {
      const large = await failure(admin.setDefaultVerifyEmailMessageText({ language: 'de', footerText: 'x'.repeat(MAX_BODY_BYTES + 1) }, as()));
      expect(large.code).toBe(Code.ResourceExhausted);
      // The import takes more than the global limit, up to its own.
      const big = await failure(
        targetAdmin.importData(
          { data: { case: 'dataOrgsv1', value: { orgs: [{ orgId: '1', org: { name: 'x'.repeat(MAX_IMPORT_BODY_BYTES) } }] } }, timeout: '1m' },
          { headers: bearer(target.t.adminToken) },
        ),
      );
      expect(big.code).toBe(Code.ResourceExhausted);
    });

    it('refuses an import without the permission before reading its body', async () => {
      const nobody = await insertMachineUserWithToken(target.t, {});
      const denied = await failure(targetAdmin.importData({ data: { case: 'dataOrgs', value: { orgs: [] } }, timeout: '1m' }, { headers: bearer(nobody.token) }));
      expect(denied.code, denied.message).toBe(Code.PermissionDenied);
      expect(denied.findDetails(ErrorDetailSchema)[0]?.id).toBeTruthy();
      const unauthenticated = await failure(targetAdmin.importData({ data: { case: 'dataOrgs', value: { orgs: [] } } }, { headers: bearer('nope') }));
      expect(unauthenticated.code).toBe(Code.Unauthenticated);
      // A body past the import's limit from a caller who may not import: refused for who it is (7),
      // not for its size (8), which only reading the body would tell.
      const oversized = { data: { case: 'dataOrgsv1' as const, value: { orgs: [{ orgId: '1', org: { name: 'x'.repeat(MAX_IMPORT_BODY_BYTES) } }] } } };
      expect((await failure(targetAdmin.importData(oversized, { headers: bearer(nobody.token) }))).code).toBe(Code.PermissionDenied);
    });
  });

  it('offers every RPC whose REST twin is an operation of the spec, and reaches that operation through it', async () => {
    const transport = transportFor('Connect JSON', s.issuer, h2.base);
    const table = rpcTable();
    const offered = table.filter((entry) => entry.twin);
    expect(offered.length).toBeGreaterThan(200);
    for (const entry of offered) {
      const client = createClient(entry.service, transport) as unknown as Record<string, (input: object, options: object) => Promise<unknown>>;
      // Every path variable set, no token: the REST operation answers 401 (16), so the call reached it.
      const input = Object.fromEntries(
        [...entry.twin!.template.matchAll(/\{([^}=]+)(?:=[^}]*)?\}/g)].map(([, name]) => [entry.method.input.fields.find((f) => f.name === name)!.localName, pathValue(entry.twin!.template, name)]),
      );
      const error = await failure(client[entry.method.localName](input, {}));
      expect(error.code, `${entry.name}: ${error.message}`).toBe(Code.Unauthenticated);
      // The reads that need no input: a REST answer that does not fit ZITADEL's message would be INTERNAL (13).
      if (entry.twin!.httpMethod === 'GET' && !entry.twin!.template.includes('{')) {
        const code = await client[entry.method.localName]({}, { headers: bearer(s.t.adminToken) }).then(
          () => 0,
          (e) => ConnectError.from(e).code as number,
        );
        expect([0, Code.NotFound], entry.name).toContain(code);
      }
    }
    // The other way round: every operation of the spec with a ZITADEL twin is reached by an offered RPC.
    const reached = new Set(offered.map((entry) => entry.twin!.operationId));
    const twinless = (Object.keys(OPERATIONS) as OperationId[]).filter((id) => !reached.has(id));
    const sameNamed = twinless.filter((id) => table.some((entry) => entry.method.name === id && OPERATIONS[id].path.startsWith(restPrefixOf(entry.service))));
    expect(sameNamed).toEqual(KNOWN_PATH_DIFFERENCES);
  });

  it("holds the REST import's slot while an import's message is read, and frees it when the call is dropped", async () => {
    // An import over Connect JSON whose body is still coming: authenticated, slot taken, body wanted.
    const slow = httpRequest(`${target.issuer}/zitadel.admin.v1.AdminService/ImportData`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '1000', ...bearer(target.t.adminToken) },
    });
    slow.on('error', () => undefined);
    slow.write('{"timeout":');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const admin = createClient(AdminService, transportFor('Connect JSON', target.issuer, targetH2.base));
    const second = await failure(admin.importData({ data: { case: 'dataOrgs', value: { orgs: [] } } }, { headers: bearer(target.t.adminToken) }));
    expect(second.code).toBe(Code.ResourceExhausted);
    slow.destroy();
    await expect
      .poll(
        async () =>
          await admin.importData({ data: { case: 'dataOrgs', value: { orgs: [] } } }, { headers: bearer(target.t.adminToken) }).then(
            () => 'ok',
            (e) => String(e),
          ),
        { timeout: 5_000 },
      )
      .toBe('ok');
  });

  it('logs one line per RPC: method, RPC, status code, duration, caller', async () => {
    const admin = createClient(AdminService, transportFor('Connect JSON', s.issuer, h2.base));
    logLines.length = 0;
    await admin.getCustomVerifyEmailMessageText({ language: 'de' }, { headers: { ...bearer(s.t.adminToken), 'x-request-id': 'rpc-log-1' } });
    await failure(admin.getMyInstance({}, { headers: { ...bearer(s.t.adminToken), 'x-request-id': 'rpc-log-2' } }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const first = logLines.filter((line) => line.requestId === 'rpc-log-1');
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ msg: 'rpc', method: 'POST', rpc: 'zitadel.admin.v1.AdminService/GetCustomVerifyEmailMessageText', code: 0, userId: s.t.adminUserId, protocol: 'connect' });
    expect(first[0].durationMs).toEqual(expect.any(Number));
    expect(logLines.filter((line) => line.requestId === 'rpc-log-2')).toMatchObject([{ rpc: 'zitadel.admin.v1.AdminService/GetMyInstance', code: 12 }]);
    // Over gRPC (HTTP/2) too, with the caller's address: an HTTP/2 stream's socket is gone once it closes.
    const grpc = createClient(AdminService, transportFor('gRPC', s.issuer, h2.base));
    await grpc.getCustomVerifyEmailMessageText({ language: 'de' }, { headers: { ...bearer(s.t.adminToken), 'x-request-id': 'rpc-log-3' } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logLines.filter((line) => line.requestId === 'rpc-log-3')).toMatchObject([
      { rpc: 'zitadel.admin.v1.AdminService/GetCustomVerifyEmailMessageText', protocol: 'grpc', code: 0, userId: s.t.adminUserId, remoteAddress: '127.0.0.1' },
    ]);
    expect(first[0].remoteAddress).toBe('127.0.0.1');
  });

  it('answers gRPC-web text (base64 frames) by hand', async () => {
    const request = toBinary(GetCustomVerifyEmailMessageTextRequestSchema, create(GetCustomVerifyEmailMessageTextRequestSchema, { language: 'de' }));
    const frame = Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), Buffer.from(request)]);
    frame.writeUInt32BE(request.length, 1);
    const res = await fetch(`${s.issuer}/zitadel.admin.v1.AdminService/GetCustomVerifyEmailMessageText`, {
      method: 'POST',
      headers: { 'content-type': 'application/grpc-web-text', accept: 'application/grpc-web-text', 'x-grpc-web': '1', ...bearer(s.t.adminToken) },
      body: frame.toString('base64'),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/grpc-web-text/);
    // The answer is base64 chunks (one per frame), each padded on its own.
    const text = await res.text();
    const bytes = Buffer.concat((text.match(/[A-Za-z0-9+/]+={0,2}/g) ?? []).map((chunk) => Buffer.from(chunk, 'base64')));
    const frames: { flags: number; data: Buffer }[] = [];
    for (let at = 0; at < bytes.length; ) {
      const length = bytes.readUInt32BE(at + 1);
      frames.push({ flags: bytes[at], data: bytes.subarray(at + 5, at + 5 + length) });
      at += 5 + length;
    }
    const message = fromBinary(GetCustomVerifyEmailMessageTextResponseSchema, frames.find((f) => f.flags === 0)!.data);
    expect(message.customText?.title).toBe('Verify (gRPC)');
    expect(frames.find((f) => f.flags === 0x80)?.data.toString()).toMatch(/grpc-status: ?0/);
  });

  it("works with ZITADEL's Node SDK (@zitadel/node, nice-grpc over HTTP/2)", async () => {
    const admin = createAdminClient(h2.base, createAccessTokenInterceptor(s.t.adminToken));
    const management = createManagementClient(h2.base, createAccessTokenInterceptor(s.t.adminToken));
    const set = await admin.setDefaultVerifyEmailMessageText({ language: 'fr', title: 'Vérifier', text: 'Bonjour' });
    expect(Number(set.details?.sequence)).toBeGreaterThan(0);
    const custom = await admin.getCustomVerifyEmailMessageText({ language: 'fr' });
    expect(custom.customText?.title).toBe('Vérifier');
    // Issue 48.3: GetDefaultOrg reached GetOrgByID with the id "default" (NOT_FOUND).
    const defaultOrg = await admin.getDefaultOrg({});
    expect(defaultOrg.org).toMatchObject({ id: s.t.defaultOrgId, name: expect.any(String) });
    const inB = { metadata: Metadata({ 'x-zitadel-orgid': orgB }) };
    const added = await management.addUserGrant({ userId: userB, projectId: projectB, roleKeys: ['reader'] }, inB);
    await management.removeUserGrant({ userId: userB, grantId: added.userGrantId }, inB);
    const idp = await management.addOrgJWTIDP(
      { name: 'jwt sdk', jwtEndpoint: 'https://jwt.example.com/jwt', issuer: 'https://jwt.example.com', keysEndpoint: 'https://jwt.example.com/keys', headerName: 'x-jwt' },
      inB,
    );
    expect(idp.idpId).toMatch(/^\d+$/);
    const error = await admin.getMyInstance({}).then(
      () => undefined,
      (e: { code: number; details: string }) => e,
    );
    expect(error).toMatchObject({ code: 12 });
    const denied = await createAdminClient(h2.base, createAccessTokenInterceptor('bad'))
      .getCustomVerifyEmailMessageText({ language: 'de' })
      .then(
        () => undefined,
        (e: { code: number }) => e,
      );
    expect(denied).toMatchObject({ code: 16 });
  });
});
