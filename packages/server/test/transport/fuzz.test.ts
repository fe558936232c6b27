/**
 * Spec-driven fuzzing of every API operation (issue 16): for each operation of the hand-written
 * spec, a bounded, seeded set of hostile requests — bodies (wrong types, unknown fields, huge and
 * NUL-bearing strings, deep nesting, arrays for objects, broken JSON, other content types), path
 * parameters (`.`/`..`, encoded slashes, NUL, very long), query parameters and headers (odd
 * `x-service-orgid`, broken Authorization) — on both stores. Every answer must be:
 *   - no 5xx,
 *   - a status the operation documents (its own `responses`, not `default`),
 *   - for an error, ZITADEL's body `{code, message, details:[{"@type", id, message}]}`.
 * A failure names the operation, the request and the answer, so it can be replayed with curl.
 *
 * The OAuth/login endpoints (`x-served-by`) speak OAuth, not the API's conventions: their errors
 * must be OAuth's `{error, error_description}` or an HTML page (or the API's body for what is
 * refused before any operation is chosen, as the spec's introduction says).
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadSpec } from '../../src/http/spec.js';
import { describeEachStore, insertHumanUser, insertOrg, type TestInstance } from '../support/instance.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

type Json = unknown;
type Schema = Record<string, Json>;

const spec = loadSpec() as Schema;
const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;
const CASES_PER_OPERATION = 24;

interface Operation {
  id: string;
  method: string;
  path: string;
  statuses: Set<number>;
  pathParams: string[];
  queryParams: { name: string; schema: Schema }[];
  body?: Schema;
  /** Served by the authorization server or the login pages: OAuth's error body or an HTML page. */
  oauth: boolean;
  /** A body the server should never read as JSON (e.g. a binary upload): none today. */
  authenticated: boolean;
}

function resolve(node: Json): Schema {
  let current = node as Schema;
  for (let i = 0; i < 20 && current && typeof current.$ref === 'string'; i++) {
    const parts = (current.$ref as string).replace(/^#\//, '').split('/');
    current = parts.reduce<Json>((n, p) => (n as Schema)[p.replace(/~1/g, '/').replace(/~0/g, '~')], spec) as Schema;
  }
  return current ?? {};
}

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, rawItem] of Object.entries(spec.paths as Schema)) {
    const item = resolve(rawItem);
    for (const method of METHODS) {
      const op = item[method] ? resolve(item[method]) : undefined;
      if (!op) continue;
      const params = [...((item.parameters as Json[]) ?? []), ...((op.parameters as Json[]) ?? [])].map(resolve);
      const statuses = new Set(
        Object.keys(resolve(op.responses))
          .filter((s) => /^\d{3}$/.test(s))
          .map(Number),
      );
      const bodySchema = op.requestBody ? resolve(resolve(op.requestBody).content && (resolve(op.requestBody).content as Schema)['application/json'])?.schema : undefined;
      out.push({
        id: String(op.operationId ?? `${method} ${path}`),
        method: method.toUpperCase(),
        path,
        statuses,
        pathParams: params.filter((p) => p.in === 'path').map((p) => String(p.name)),
        queryParams: params.filter((p) => p.in === 'query').map((p) => ({ name: String(p.name), schema: resolve(p.schema) })),
        body: bodySchema ? resolve(bodySchema) : undefined,
        oauth: Boolean(op['x-served-by']),
        authenticated: Array.isArray(op.security) ? (op.security as Json[]).length > 0 : Array.isArray(spec.security) && (spec.security as Json[]).length > 0,
      });
    }
  }
  return out;
}

/** mulberry32: a small seeded generator, so every run sends the same requests. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!, chance: (p: number) => next() < p };
}
type Rng = ReturnType<typeof random>;

const HOSTILE_STRINGS = [
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  'x'.repeat(70_000),
  '💥'.repeat(300),
  '\u202eevil',
  '\ud800',
  "' or 1=1 --",
  '{{.Code}}{{',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '-1',
  '1e309',
  'null',
  '%00',
  '\r\nX-Injected: 1',
];
const HOSTILE_VALUES: Json[] = [null, true, 0, -1, 1.5, 2 ** 63, Number.MAX_SAFE_INTEGER, [], [1, 2], {}, { nested: { deeper: {} } }, 'text'];
const HOSTILE_PATH_SEGMENTS = ['.', '..', '%2e%2e', '%2F', 'a%2Fb', '%00', '%ZZ', 'x'.repeat(3000), '%F0%9F%92%A5', "'", '-1', '0', '99999999999999999999999', '%20', '%0d%0a'];
const HOSTILE_ORG_IDS = ['', ' ', 'nonexistent', '0', '%00', 'x'.repeat(5000), '../', '💥', '1,2'];

function sample(schema: Schema, rng: Rng, depth = 0): Json {
  const s = resolve(schema);
  if (s.enum && Array.isArray(s.enum)) return rng.pick(s.enum as Json[]);
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : s.type;
  if (s.oneOf || s.anyOf) return sample(rng.pick((s.oneOf ?? s.anyOf) as Schema[]), rng, depth + 1);
  if (s.allOf) return Object.assign({}, ...(s.allOf as Schema[]).map((part) => sample(part, rng, depth + 1)));
  if (type === 'object' || s.properties) {
    if (depth > 4) return {};
    const out: Record<string, Json> = {};
    for (const [key, prop] of Object.entries((s.properties as Schema) ?? {})) {
      if ((s.required as string[] | undefined)?.includes(key) || rng.chance(0.5)) out[key] = sample(prop as Schema, rng, depth + 1);
    }
    return out;
  }
  if (type === 'array') return depth > 4 ? [] : Array.from({ length: rng.pick([0, 1, 2]) }, () => sample((s.items as Schema) ?? {}, rng, depth + 1));
  if (type === 'integer' || type === 'number') return rng.pick([0, 1, 7, 100]);
  if (type === 'boolean') return rng.chance(0.5);
  if (type === 'string') {
    if (s.format === 'date-time') return '2026-01-01T00:00:00Z';
    return rng.pick(['x', 'en', 'test-value', 'https://example.com/cb', '123456789012345678']);
  }
  return 'x';
}

/** Replaces one value somewhere in the sample with a hostile one (or adds an unknown field). */
function mutate(value: Json, rng: Rng): Json {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const obj = { ...(value as Record<string, Json>) };
    const keys = Object.keys(obj);
    if (keys.length === 0 || rng.chance(0.2)) {
      obj[rng.pick(['titel', '__proto__', 'constructor', 'x'.repeat(200), '\u0000'])] = rng.pick(HOSTILE_VALUES);
      return obj;
    }
    const key = rng.pick(keys);
    obj[key] = rng.chance(0.5) ? mutate(obj[key], rng) : rng.pick([...HOSTILE_VALUES, ...HOSTILE_STRINGS]);
    return obj;
  }
  if (Array.isArray(value) && value.length > 0 && rng.chance(0.5)) return value.map((v, i) => (i === 0 ? mutate(v, rng) : v));
  return rng.pick([...HOSTILE_VALUES, ...HOSTILE_STRINGS]);
}

function deepNesting(levels: number): string {
  return '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
}

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function buildRequest(op: Operation, rng: Rng, t: TestInstance, n: number, victims: string[]): FuzzRequest {
  const headers: Record<string, string> = {};
  // Most cases carry the administrator's token so that validation, not authentication, is reached.
  const auth = n % 8 === 7 ? rng.pick([null, 'Bearer', 'Bearer x', 'Basic YTpi', `Bearer ${t.adminToken}x`, 'Bearer \u00ff']) : `Bearer ${t.adminToken}`;
  if (auth) headers.authorization = auth;
  if (rng.chance(0.15)) headers['x-service-orgid'] = encodeURIComponent(rng.pick(HOSTILE_ORG_IDS)).slice(0, 4000);

  let path = op.path;
  for (const name of op.pathParams) {
    const value = rng.chance(0.6) ? rng.pick(HOSTILE_PATH_SEGMENTS) : rng.pick([...victims, '123456789012345678', 'en', 'de', 'xx']);
    path = path.replace(`{${name}}`, value);
  }
  // A lone surrogate cannot be percent-encoded as UTF-8: send the bytes a broken client would.
  const enc = (v: string) => {
    try {
      return encodeURIComponent(v);
    } catch {
      return '%ED%A0%80';
    }
  };
  const query = op.queryParams
    .filter(() => rng.chance(0.7))
    .map((q) => `${encodeURIComponent(q.name)}=${enc(String(rng.chance(0.5) ? sample(q.schema, rng) : rng.pick(HOSTILE_STRINGS)).slice(0, 3000))}`);
  if (rng.chance(0.1)) query.push('unknown=%00');
  if (query.length) path += `?${query.join('&')}`;

  let body: string | undefined;
  if (op.body) {
    const kind = rng.pick(['mutated', 'mutated', 'mutated', 'sample', 'json-garbage', 'nesting', 'wrong-top', 'content-type', 'empty']);
    headers['content-type'] = 'application/json';
    switch (kind) {
      case 'sample':
        body = JSON.stringify(sample(op.body, rng));
        break;
      case 'mutated':
        body = JSON.stringify(mutate(sample(op.body, rng), rng));
        break;
      case 'json-garbage':
        body = rng.pick(['{', '{"a":}', 'nul', '\u0000', '{"a":"\\ud800"}', '[', '"', '{"a":1,"a":2}']);
        break;
      case 'nesting':
        body = deepNesting(rng.pick([50, 500, 5000]));
        break;
      case 'wrong-top':
        body = JSON.stringify(rng.pick([[], [1, 2], 'text', 42, null, true]));
        break;
      case 'content-type':
        headers['content-type'] = rng.pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', '']);
        body = rng.pick(['a=b', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--', '<a/>', JSON.stringify(sample(op.body, rng))]);
        break;
      case 'empty':
        body = '';
        break;
    }
  } else if (rng.chance(0.1)) {
    headers['content-type'] = 'application/json';
    body = '{"unexpected":true}';
  }
  return { method: op.method, path, headers, body };
}

const ERROR_BODY = (json: Json): boolean => {
  const b = json as Schema;
  return (
    !!b &&
    typeof b.code === 'number' &&
    typeof b.message === 'string' &&
    Array.isArray(b.details) &&
    (b.details as Schema[]).every((d) => typeof d['@type'] === 'string' && typeof d.id === 'string' && typeof d.message === 'string')
  );
};

/**
 * Failure classes known and tolerated for now, each with the defect it belongs to. Keep this list
 * empty; an entry is a promise to fix it.
 */
const TOLERATED: { defect: string; matches: (op: Operation, req: FuzzRequest, status: number) => boolean }[] = [];

const describeText = (op: Operation, req: FuzzRequest, status: number, text: string) =>
  `${op.id}: ${req.method} ${req.path.slice(0, 300)}${req.path.length > 300 ? '…' : ''}\n` +
  `  headers: ${JSON.stringify({ ...req.headers, authorization: req.headers.authorization?.replace(/[A-Za-z0-9_-]{20,}/, '<token>') })}\n` +
  `  body: ${req.body === undefined ? '(none)' : JSON.stringify(req.body.slice(0, 300))}\n` +
  `  → ${status} ${text.slice(0, 300)}`;

/** Sends the request as it is (raw path, any method with any body) over real HTTP. */
function send(base: URL, req: FuzzRequest): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const body = req.body === undefined ? undefined : Buffer.from(req.body, 'utf8');
    const headers: Record<string, string | number> = { ...req.headers, connection: 'close' };
    if (body) headers['content-length'] = body.length;
    const r = httpRequest({ host: base.hostname, port: base.port, method: req.method, path: req.path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    r.on('error', reject);
    r.end(body);
  });
}

describeEachStore('spec-driven fuzzing', (dialect) => {
  let s: OidcTestServer;
  let t: TestInstance;
  /** Ids of real objects for path parameters: never the administrator, whose token the run needs. */
  let victims: string[];
  beforeAll(async () => {
    s = await startOidcServer(dialect);
    t = s.t;
    const { orgId } = await insertOrg(t, 'fuzz-victim');
    const { userId } = await insertHumanUser(t, { orgId });
    victims = [orgId, userId];
  });
  afterAll(async () => {
    await s.close();
  });

  const ops = operations();

  it('covers every API operation of the spec', () => {
    expect(ops.length).toBeGreaterThan(40);
  });

  it('answers every hostile request with a documented status, never a 5xx, errors in the error body', async () => {
    const failures: string[] = [];
    let sent = 0;
    const statuses = new Map<number, number>();
    for (const [index, op] of ops.entries()) {
      const rng = random(0x5eed + index * 7919);
      for (let n = 0; n < CASES_PER_OPERATION; n++) {
        const req = buildRequest(op, rng, t, n, victims);
        const res = await send(new URL(s.issuer), req);
        sent++;
        const text = res.text;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (TOLERATED.some((k) => k.matches(op, req, res.status))) continue;
        const problems: string[] = [];
        if (res.status >= 500) problems.push('server error');
        if (!op.statuses.has(res.status)) problems.push(`status ${res.status} not documented (documented: ${[...op.statuses].join(', ')})`);
        if (res.status >= 400) {
          let json: Json;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          const oauthBody = (json as Schema | undefined)?.error !== undefined && typeof (json as Schema).error === 'string';
          const page = /<html/i.test(text);
          // (The API's body is what the server answers before any operation is chosen, e.g. a `..` segment: spec intro.)
          if (op.oauth ? !(oauthBody || page || ERROR_BODY(json)) : !ERROR_BODY(json)) problems.push('error not in the documented body');
        }
        if (problems.length) failures.push(`${problems.join('; ')}\n${describeText(op, req, res.status, text)}`);
      }
    }
    expect(sent).toBe(ops.length * CASES_PER_OPERATION);
    // The administrator's token must survive the run: most requests are meant to reach validation.
    expect(statuses.get(401) ?? 0, JSON.stringify(Object.fromEntries(statuses))).toBeLessThan(sent * 0.25);
    // Show a bounded number, grouped by the first problem, so one defect does not drown the others.
    const seen = new Set<string>();
    const distinct = failures.filter((f) => {
      const key = f.split('\n')[0] + f.split('\n')[1]!.split(':')[0];
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    expect(distinct.slice(0, 25).join('\n\n'), `${failures.length} of ${sent} requests failed`).toBe('');
  }, 300_000);
});
