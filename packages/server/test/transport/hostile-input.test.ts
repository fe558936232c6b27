/**
 * "No 500 for anything a caller can send": hostile input through every route of the app, on
 * both stores. Every answer must be < 500 and, when it is an error, ZITADEL's error body.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkPasswordLogin } from '../../src/domain/login/password-login.js';
import { jobDocuments } from '../../src/domain/transfer/import/job-documents.js';
import { parseDataOrgsV1 } from '../../src/domain/transfer/v1.js';
import { parseDataOrgs } from '../../src/domain/transfer/validate.js';
import { processSecretBox } from '../../src/secrets/secret-box.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';
import { tempDir } from '../support/temp-dir.js';
import { richDocument } from '../support/transfer-documents.js';

interface Failure {
  request: string;
  status: number;
  body: string;
}

/** Path parameter values a caller can put in any `{param}`, already percent-encoded. */
const HOSTILE_PARAMS: Record<string, string> = {
  unicode: encodeURIComponent('ünï-日本-😀'),
  long: 'x'.repeat(300),
  veryLong: '9'.repeat(5000),
  nul: '%00',
  nulInside: 'abc%00def',
  control: '%01%1F%7F',
  malformedPercent: '%E0%A4%A',
  loneSurrogate: '%ED%A0%80',
  sqlish: encodeURIComponent("' OR 1=1 --"),
  dots: '..%2F..%2Fetc',
  hugeNumber: '99999999999999999999999999999999',
  negative: '-1',
};

/** Bodies sent to every route that takes one. */
const HOSTILE_BODIES: Record<string, string> = {
  deepArray: '['.repeat(100_000) + ']'.repeat(100_000),
  deepObject: '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000),
  deepInField: `{"query":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)},"queries":${'['.repeat(20_000)}${']'.repeat(20_000)}}`,
  hugeNumbers: '{"query":{"offset":1e400,"limit":-1e400},"offset":"99999999999999999999999","limit":1e308,"roles":[1e400]}',
  bigIntegers: '{"query":{"offset":"18446744073709551616","limit":"99999999999999999999999"}}',
  null: 'null',
  string: '"text"',
  number: '1e999',
  array: '[]',
  protoKeys: '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}',
  nulStrings: JSON.stringify({
    name: 'a\u0000b',
    userName: 'u\u0000',
    roleKey: 'r\u0000',
    displayName: '\u0000',
    firstName: '\u0000',
    lastName: 'x',
    profile: { firstName: 'a\u0000', lastName: 'b' },
    email: { email: 'a\u0000@example.com' },
    roles: ['\u0000'],
    projectId: '\u0000',
    userId: '\u0000',
    title: '\u0000',
    subject: '\u0000',
    issuer: '\u0000',
    jwtEndpoint: '\u0000',
    keysEndpoint: '\u0000',
    headerName: '\u0000',
  }),
  loneSurrogates: JSON.stringify({ name: '\ud800', userName: '\udfff', title: '\ud800x', roles: ['\ud800'] }),
  wrongTypes: JSON.stringify({
    name: 1,
    userName: [],
    roleKey: {},
    roles: 'ORG_OWNER',
    userId: 7,
    projectId: true,
    query: [],
    queries: {},
    title: 1,
    timeout: 30,
    dataOrgs: 'orgs',
    orgIds: 'a',
    withPasswords: 'yes',
    profile: 'p',
    email: [],
    hashedPassword: 'h',
  }),
};

/** Odd values of x-service-orgid (a header cannot carry NUL, CR or LF). */
const HOSTILE_ORG_HEADERS = ["' OR 1=1 --", 'x'.repeat(5000), '\t  \t', 'ÿþ-latin1', '%00', '../../etc', '{}', '-1', '99999999999999999999999999'];

describeEachStore('hostile input never answers 500', (dialect) => {
  let t: TestInstance;
  let routes: { method: string; path: string }[];

  beforeAll(async () => {
    // Import jobs enabled, as `npm start` always has them (a folder under DATA_DIR): their start route gets the bodies too.
    t = await createTestInstance(dialect, { maxImportBodyBytes: 4 * 1024 * 1024, importJobs: { documents: jobDocuments(tempDir('hostile-jobs-'), processSecretBox()) } });
    routes = t.app.routes
      .filter((r) => r.method !== 'ALL' && r.path.includes('/v1/'))
      .map((r) => ({ method: r.method, path: r.path }))
      .filter((r, i, all) => all.findIndex((o) => o.method === r.method && o.path === r.path) === i);
  });
  afterAll(() => t.close());

  /** Sends the request and returns a failure when the answer is a 5xx or an error without the error body. */
  const probe = async (method: string, path: string, options: { body?: string; headers?: Record<string, string> } = {}): Promise<Failure | undefined> => {
    const res = await t.call(method, path, { body: options.body, headers: options.headers });
    const text = await res.text();
    const request = `${method} ${path.slice(0, 120)}${options.body ? ` body=${options.body.slice(0, 60)}` : ''}${options.headers ? ` headers=${JSON.stringify(options.headers).slice(0, 60)}` : ''}`;
    if (res.status >= 500) return { request, status: res.status, body: text.slice(0, 300) };
    if (res.status >= 400) {
      let body: { code?: unknown; message?: unknown; details?: { id?: unknown }[] } | undefined;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (typeof body?.code !== 'number' || typeof body.message !== 'string' || typeof body.details?.[0]?.id !== 'string') {
        return { request, status: res.status, body: text.slice(0, 300) };
      }
    }
    return undefined;
  };

  const collect = async (probes: Promise<Failure | undefined>[]) => (await Promise.all(probes)).filter((f): f is Failure => f !== undefined);

  it('hostile path parameters in every route → 4xx with the error body', async () => {
    const failures: Failure[] = [];
    for (const [name, value] of Object.entries(HOSTILE_PARAMS)) {
      const batch = routes
        .filter((r) => r.path.includes('/:'))
        .map((r) => {
          const path = r.path.replace(/:[A-Za-z]+/g, value);
          const body = ['POST', 'PUT', 'PATCH'].includes(r.method) ? '{}' : undefined;
          return probe(r.method, path, { body });
        });
      for (const f of await collect(batch)) failures.push({ ...f, request: `[${name}] ${f.request}` });
    }
    expect(failures).toEqual([]);
  });

  it('hostile bodies to every route that takes one → 4xx with the error body', async () => {
    const failures: Failure[] = [];
    for (const r of routes.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method))) {
      const path = r.path.replace(/:[A-Za-z]+/g, 'hostile-1');
      for (const [name, body] of Object.entries(HOSTILE_BODIES)) {
        const f = await probe(r.method, path, { body });
        if (f) failures.push({ ...f, request: `[${name}] ${f.request}` });
      }
    }
    expect(failures).toEqual([]);
  });

  it('odd x-service-orgid values → 4xx with the error body', async () => {
    const failures: Failure[] = [];
    for (const value of HOSTILE_ORG_HEADERS) {
      for (const [method, path, body] of [
        ['GET', '/management/v1/orgs/me', undefined],
        ['POST', '/management/v1/users/_search', '{}'],
        ['POST', '/management/v1/projects', '{"name":"p"}'],
      ] as const) {
        const f = await probe(method, path, { body, headers: { 'x-service-orgid': value } });
        if (f) failures.push(f);
      }
    }
    expect(failures).toEqual([]);
    const res = await t.call('GET', '/management/v1/orgs/me', { headers: { 'x-service-orgid': "' OR 1=1 --" } });
    expect(res.status).toBe(403);
    expect((await res.json()).details[0].id).toBe('AUTH-Bs7Ds');
  });

  const errorOf = async (res: Response) => {
    const body = await res.json();
    return { status: res.status, code: body.code, id: body.details?.[0]?.id, message: body.message as string };
  };
  const UNSTORABLE = 'value must not contain NUL characters or unpaired surrogates';

  it('NUL and unpaired surrogates → 400 naming the field, on both stores alike', async () => {
    expect(await errorOf(await t.call('GET', '/management/v1/users/abc%00def'))).toMatchObject({
      status: 400,
      code: 3,
      id: 'API-V4l1d',
      message: expect.stringContaining(`invalid userId: ${UNSTORABLE}`),
    });
    expect(await errorOf(await t.call('POST', '/management/v1/orgs', { body: { name: 'a\u0000b' } }))).toMatchObject({ status: 400, message: expect.stringContaining(`invalid name: ${UNSTORABLE}`) });
    expect(await errorOf(await t.call('POST', '/management/v1/projects', { body: { name: 'p\ud800' } }))).toMatchObject({
      status: 400,
      message: expect.stringContaining(`invalid name: ${UNSTORABLE}`),
    });
    const doc = richDocument('8');
    doc.orgs[1].humanUsers[0].user.profile.lastName = 'x\u0000';
    const imported = await errorOf(await t.call('POST', '/admin/v1/import', { body: { dataOrgs: doc } }));
    expect(imported).toMatchObject({ status: 400, message: expect.stringContaining(`invalid dataOrgs.orgs[1].humanUsers[0].user.profile.lastName: ${UNSTORABLE}`) });
    expect(await t.store.read.orgs.get('8100')).toBeUndefined();
    // A paired surrogate (an emoji) is ordinary text and is kept.
    const emoji = await t.call('POST', '/management/v1/orgs', { body: { name: 'Org 😀' } });
    expect(emoji.status).toBe(200);
  });

  it('a document from a bucket is checked the same way (the domain, not only the HTTP layer)', () => {
    const doc = richDocument('7');
    doc.orgs[0].machineUsers[0].user.description = '\ud800';
    expect(() => parseDataOrgs(doc)).toThrow(`invalid orgs[0].machineUsers[0].user.description: ${UNSTORABLE}`);
    expect(() => parseDataOrgsV1(JSON.stringify({ orgs: [{ orgId: '\u0000', org: { name: 'x' } }] }))).toThrow(`invalid orgs[0].orgId: ${UNSTORABLE}`);
  });

  it('a login name with NUL or an unpaired surrogate is a wrong login, not a store error', async () => {
    for (const loginName of ['admin\u0000', 'a\udc00@localhost']) {
      expect(await checkPasswordLogin(t.store, t.instanceId, loginName, 'whatever')).toEqual({ ok: false, reason: 'invalid_credentials' });
    }
  });

  it('deep nesting, huge numbers, long and unicode ids → 4xx', async () => {
    const deep = await errorOf(await t.call('POST', '/management/v1/users/_search', { body: HOSTILE_BODIES.deepArray }));
    expect(deep).toMatchObject({ status: 400, code: 3 });
    const nested = await errorOf(await t.call('POST', '/admin/v1/import', { body: `{"dataOrgs":{"orgs":[${'{"org":'.repeat(20_000)}1${'}'.repeat(20_000)}]}}` }));
    expect(nested).toMatchObject({ status: 400, code: 3 });
    const huge = await errorOf(await t.call('POST', '/management/v1/users/_search', { body: HOSTILE_BODIES.hugeNumbers }));
    expect(huge).toMatchObject({ status: 400, message: expect.stringContaining('query') });
    expect((await errorOf(await t.call('GET', `/management/v1/users/${'x'.repeat(300)}`))).status).toBe(404);
    expect((await errorOf(await t.call('GET', `/management/v1/projects/${HOSTILE_PARAMS.unicode}`))).status).toBe(404);
    expect((await errorOf(await t.call('GET', `/management/v1/users/${HOSTILE_PARAMS.malformedPercent}`))).status).toBe(404);
  });

  it('an import document with a wrong type in each field in turn → never 500', async () => {
    const failures: Failure[] = [];
    const paths: (string | number)[][] = [];
    const walk = (value: unknown, path: (string | number)[]) => {
      if (path.length > 0) paths.push(path);
      if (value !== null && typeof value === 'object') {
        for (const [key, child] of Object.entries(value)) walk(child, [...path, Array.isArray(value) ? Number(key) : key]);
      }
    };
    walk(richDocument('9'), []);
    const wrong = (original: unknown): unknown[] =>
      typeof original === 'string' ? [123, {}, 'a\u0000b'] : typeof original === 'object' && original !== null ? ['x', Array.isArray(original) ? {} : [], 1e308] : ['x', {}];
    for (const path of paths) {
      const doc = richDocument('9');
      let parent: Record<string | number, unknown> = doc as unknown as Record<string, unknown>;
      for (const part of path.slice(0, -1)) parent = parent[part] as Record<string | number, unknown>;
      const last = path[path.length - 1];
      const original = parent[last];
      for (const value of wrong(original)) {
        parent[last] = value;
        const body = JSON.stringify({ timeout: '30s', dataOrgs: doc });
        const f = await probe('POST', '/admin/v1/import', { body });
        if (f) failures.push({ ...f, request: `${path.join('.')}=${JSON.stringify(value)}` });
      }
      parent[last] = original;
    }
    expect(failures).toEqual([]);
  }, 300_000);
});
