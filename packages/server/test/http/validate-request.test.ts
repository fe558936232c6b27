/**
 * http/validate-request.ts validates a route's input in one middleware instead of @hono/zod-openapi's
 * chain of one per input. It must answer exactly as that chain did: the same requests go to an app
 * built with the library's own `openapi` and to one built with ours, and every status and body must
 * be equal. Then what only ours does: the headers it reads, the asynchronous fallback, the routes it
 * refuses to register.
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { type Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import { requestValidator, type ValidationHook, type ValidationResult } from '../../src/http/validate-request.js';

const Body = z.object({ title: z.string().max(5).optional(), count: z.number().int().optional() }).strict();

const routes = {
  required: createRoute({
    method: 'put',
    path: '/things/{id}',
    request: {
      params: z.object({ id: z.string().min(2) }),
      query: z.object({ mode: z.enum(['a', 'b']).optional() }),
      headers: z.object({ 'x-service-orgid': z.string().max(4).optional() }),
      body: { required: true, content: { 'application/json': { schema: Body } } },
    },
    responses: { 200: { description: 'ok' } },
  }),
  optional: createRoute({
    method: 'post',
    path: '/things/{id}/_touch',
    request: {
      params: z.object({ id: z.string().min(2) }),
      body: { required: false, content: { 'application/json': { schema: Body } } },
    },
    responses: { 200: { description: 'ok' } },
  }),
};

/**
 * The app's hook in small: a failure becomes 422 naming the input, the issue and the value sent at
 * the issue's path (as app.ts words its 400), and a body titled "hook" is answered by the hook.
 */
const hook = (result: { success: boolean; target: string; data?: unknown; error?: z.ZodError }, c: Context) => {
  if (!result.success) {
    const issue = result.error!.issues[0];
    const sent = issue.path.reduce<unknown>((value, key) => (value as Record<PropertyKey, unknown> | undefined)?.[key], result.data);
    return c.json({ target: result.target, path: issue.path, sent: sent ?? null, issue: issue.code }, 422);
  }
  if ((result.data as { title?: string }).title === 'hook') return c.json({ answeredBy: 'hook' }, 202);
  return undefined;
};

const echo = (c: Context) =>
  c.json({ param: c.req.valid('param' as never), query: c.req.valid('query' as never) ?? null, header: c.req.valid('header' as never) ?? null, json: c.req.valid('json' as never) }, 200);

const onError = (err: Error, c: Context) => c.json({ thrown: err instanceof HTTPException ? err.status : 'other', message: err.message }, 400);

function libraryApp() {
  const app = new OpenAPIHono({ defaultHook: hook as never });
  app.openapi(routes.required, echo as never);
  app.openapi(routes.optional, echo as never);
  app.onError(onError);
  return app;
}

function ourApp() {
  const app = new Hono();
  for (const route of Object.values(routes)) {
    app.on(route.method.toUpperCase(), route.path.replaceAll(/\/{(.+?)}/g, '/:$1'), requestValidator(route, hook as ValidationHook)!, echo);
  }
  app.onError(onError);
  return app;
}

interface Case {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

const json = { 'content-type': 'application/json' };
const cases: Case[] = [
  { name: 'valid input everywhere', method: 'PUT', path: '/things/ab?mode=a', headers: { ...json, 'x-service-orgid': '12' }, body: '{"title":"hi","count":2}' },
  { name: 'a bad path parameter comes first', method: 'PUT', path: '/things/a?mode=z', headers: { ...json, 'x-service-orgid': '12345' }, body: '{"title":"toolong"}' },
  { name: 'a bad query value', method: 'PUT', path: '/things/ab?mode=z', headers: json, body: '{}' },
  { name: 'a repeated query parameter', method: 'PUT', path: '/things/ab?mode=a&mode=b', headers: json, body: '{}' },
  { name: 'a bad header', method: 'PUT', path: '/things/ab', headers: { ...json, 'x-service-orgid': '12345' }, body: '{}' },
  { name: 'a header in another case', method: 'PUT', path: '/things/ab', headers: { ...json, 'X-Service-OrgId': '77' }, body: '{}' },
  { name: 'a bad body field', method: 'PUT', path: '/things/ab', headers: json, body: '{"title":"toolong"}' },
  { name: 'an unknown body field', method: 'PUT', path: '/things/ab', headers: json, body: '{"titel":"x"}' },
  { name: 'a body that is not an object', method: 'PUT', path: '/things/ab', headers: json, body: '[1,2]' },
  { name: 'malformed JSON', method: 'PUT', path: '/things/ab', headers: json, body: '{"title":' },
  { name: 'JSON with a charset', method: 'PUT', path: '/things/ab', headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"count":1}' },
  { name: 'a +json media type', method: 'PUT', path: '/things/ab', headers: { 'content-type': 'application/merge-patch+json' }, body: '{"count":1}' },
  { name: 'text/plain', method: 'PUT', path: '/things/ab', headers: { 'content-type': 'text/plain' }, body: 'title=x' },
  { name: 'no content type and a body', method: 'PUT', path: '/things/ab', body: '{"count":1}' },
  { name: 'no content type and no body', method: 'PUT', path: '/things/ab' },
  { name: 'the hook answers', method: 'PUT', path: '/things/ab', headers: json, body: '{"title":"hook"}' },
  { name: 'optional body sent as JSON', method: 'POST', path: '/things/ab/_touch', headers: json, body: '{"count":3}' },
  { name: 'optional body invalid', method: 'POST', path: '/things/ab/_touch', headers: json, body: '{"count":"3"}' },
  { name: 'optional body left out', method: 'POST', path: '/things/ab/_touch' },
  { name: 'optional body as text/plain', method: 'POST', path: '/things/ab/_touch', headers: { 'content-type': 'text/plain' }, body: 'x' },
  { name: 'optional body without content type', method: 'POST', path: '/things/ab/_touch', body: '{"count":3}' },
];

describe('one validating middleware answers as @hono/zod-openapi does', () => {
  const library = libraryApp();
  const ours = ourApp();
  for (const c of cases) {
    it(c.name, async () => {
      const send = (app: { request: (path: string, init: RequestInit) => Response | Promise<Response> }) => app.request(c.path, { method: c.method, headers: c.headers, body: c.body });
      const [expected, actual] = await Promise.all([send(library), send(ours)]);
      const expectedBody = await expected.text();
      expect({ status: actual.status, body: await actual.text() }).toEqual({ status: expected.status, body: expectedBody });
    });
  }

  it('the cases cover each way through: success, each input failing, 415, malformed JSON, the hook answering', async () => {
    const statuses = new Set<number>();
    for (const c of cases) statuses.add((await ours.request(c.path, { method: c.method, headers: c.headers, body: c.body })).status);
    expect([...statuses].sort()).toEqual([200, 202, 400, 422]);
  });
});

describe('what the validator reads and refuses', () => {
  it('reads only the headers its schema names, so the hook never sees the others', async () => {
    const seen: unknown[] = [];
    const route = createRoute({ method: 'get', path: '/h', request: { headers: z.object({ 'x-service-orgid': z.string().max(2) }) }, responses: { 200: { description: 'ok' } } });
    const app = new Hono();
    app.get('/h', requestValidator(route, (result: ValidationResult) => void seen.push(result.data))!, (c) => c.text('ok'));
    const res = await app.request('/h', { headers: { authorization: 'Bearer secret', 'x-service-orgid': 'toolong' } });
    expect(res.status).toBe(400);
    expect(seen).toEqual([{ 'x-service-orgid': 'toolong' }]);
  });

  it('a schema with an asynchronous refinement is still checked', async () => {
    const route = createRoute({
      method: 'post',
      path: '/a',
      request: { body: { required: true, content: { 'application/json': { schema: z.object({ name: z.string().refine(async (v) => v !== 'taken') }) } } } },
      responses: { 200: { description: 'ok' } },
    });
    const app = new Hono();
    app.post('/a', requestValidator(route, () => undefined)!, (c) => c.json(c.req.valid('json' as never)));
    const send = (name: string) => app.request('/a', { method: 'POST', headers: json, body: JSON.stringify({ name }) });
    expect((await send('taken')).status).toBe(400);
    const ok = await send('free');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ name: 'free' });
  });

  it('a route declaring cookies or a form body is refused when it is registered', () => {
    const cookies = createRoute({ method: 'get', path: '/c', request: { cookies: z.object({ s: z.string() }) }, responses: { 200: { description: 'ok' } } });
    expect(() => requestValidator(cookies, () => undefined)).toThrow(/cookie/);
    const form = createRoute({
      method: 'post',
      path: '/f',
      request: { body: { content: { 'application/x-www-form-urlencoded': { schema: z.object({ a: z.string() }) } } } },
      responses: { 200: { description: 'ok' } },
    });
    expect(() => requestValidator(form, () => undefined)).toThrow(/JSON body/);
  });

  it('a route without input gets no middleware', () => {
    expect(requestValidator(createRoute({ method: 'get', path: '/n', responses: { 200: { description: 'ok' } } }), () => undefined)).toBeUndefined();
  });
});
