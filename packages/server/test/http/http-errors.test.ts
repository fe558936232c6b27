import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadSpec } from '../../src/http/spec.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

describeEachStore('HTTP error handling: every failure a caller can cause is a 4xx in the error body', (dialect) => {
  let t: TestInstance;
  beforeAll(async () => {
    t = await createTestInstance(dialect, { maxBodyBytes: 4096 });
  });
  afterAll(() => t.close());

  const expectError = async (res: Response, status: number, code: number) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = await res.json();
    expect(body.code).toBe(code);
    expect(body.details[0]).toMatchObject({ '@type': 'type.googleapis.com/zitadel.v1.ErrorDetail' });
    expect(body.details[0].requestId).toBe(res.headers.get('x-request-id'));
    return body;
  };

  it('unknown route → 404', async () => {
    await expectError(await t.call('GET', '/nowhere'), 404, 5);
    await expectError(await t.call('GET', '/admin/v1/nothing-here'), 404, 5);
  });

  it('wrong method on a known path → 405 with Allow', async () => {
    const res = await t.call('POST', '/admin/v1/text/message/verifyemail/en');
    await expectError(res, 405, 12);
    expect(res.headers.get('allow')).toContain('PUT');
  });

  it('malformed JSON → 400', async () => {
    await expectError(await t.call('PUT', '/admin/v1/text/message/verifyemail/en', { body: '{"title":' }), 400, 3);
  });

  it('a JSON body that is not an object → 400', async () => {
    const body = await expectError(await t.call('PUT', '/admin/v1/text/message/verifyemail/en', { body: '[1,2]' }), 400, 3);
    expect(body.message).toContain('body');
  });

  it('a body without Content-Type: application/json → 400', async () => {
    await expectError(await t.call('PUT', '/admin/v1/text/message/verifyemail/en', { body: 'title=x', headers: { 'content-type': 'text/plain' } }), 400, 3);
  });

  it('a body over the limit → 413 saying the limit', async () => {
    const body = await expectError(await t.call('PUT', '/admin/v1/text/message/verifyemail/en', { body: { footerText: 'x'.repeat(10_000) } }), 413, 8);
    expect(body.message).toContain('4096 bytes');
  });

  it('a trailing slash on a known path → 404, not a 405 that allows the method used', async () => {
    for (const path of ['/admin/v1/languages/', '/docs/', '/healthz/', '/admin/v1/text/message/verifyemail/en/']) {
      const res = await t.call('GET', path);
      await expectError(res, 404, 5);
      expect(res.headers.get('allow'), path).toBeNull();
    }
  });

  it('a field the operation does not define → 400 naming it, nothing stored', async () => {
    const path = '/admin/v1/text/message/verifyemail/de';
    const body = await expectError(await t.call('PUT', path, { body: { titel: 'x' } }), 400, 3);
    expect(body.message).toContain('unknown field "titel"');
    expect((await (await t.call('GET', path)).json()).customText.isDefault).toBe(true);
    // Nested objects are checked too, and the message says where.
    const nested = await expectError(await t.call('POST', '/admin/v1/orgs/_search', { body: { query: { limit: 1, lmit: 2 } } }), 400, 3);
    expect(nested.message).toMatch(/invalid query: unknown field "lmit"/);
  });

  it('a value of the wrong type → 400 naming the field and the expected type, not "required"', async () => {
    const path = '/admin/v1/text/message/verifyemail/en';
    const wrong = await expectError(await t.call('PUT', path, { body: { title: 42 } }), 400, 3);
    expect(wrong.message).toMatch(/invalid title: expected string, got number/);
    const array = await expectError(await t.call('PUT', path, { body: '[1,2]' }), 400, 3);
    expect(array.message).toMatch(/invalid body: expected object, got array/);
    const missing = await expectError(await t.call('POST', '/management/v1/orgs', { body: {} }), 400, 3);
    expect(missing.message).toMatch(/invalid name: value is required/);
  });

  it('every status an operation can answer is in its spec: unknown x-service-orgid → 403, a body over the limit → 413 (bodyless operations ignore bodies)', async () => {
    const spec = loadSpec() as {
      paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[]; requestBody?: unknown; parameters?: unknown[]; 'x-served-by'?: string }>>;
    };
    const documented = (path: string, method: string) => Object.keys(spec.paths[path][method].responses);
    // What every API operation can answer, whatever it does: an authenticated one 401 and 403 (an
    // unknown x-service-orgid), one with a path parameter or a body 400, one with a body 413.
    const gaps: string[] = [];
    for (const [path, item] of Object.entries(spec.paths)) {
      for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
        const op = item[method];
        if (!op || op['x-served-by']) continue;
        const statuses = Object.keys(op.responses);
        const need = [...(op.security?.length ? ['401', '403'] : []), ...(op.requestBody || path.includes('{') ? ['400'] : []), ...(op.requestBody ? ['413'] : [])];
        for (const status of need) if (!statuses.includes(status)) gaps.push(`${method.toUpperCase()} ${path}: ${status}`);
      }
    }
    expect(gaps).toEqual([]);
    const unknownOrg = { 'x-service-orgid': '999999' };
    await expectError(await t.call('GET', '/admin/v1/languages', { headers: unknownOrg }), 403, 7);
    expect(documented('/admin/v1/languages', 'get')).toContain('403');
    // Authentication resolves the header before any validation: too long names no organisation either.
    await expectError(await t.call('GET', '/management/v1/orgs/me', { headers: { 'x-service-orgid': 'x'.repeat(201) } }), 403, 7);
    // An operation that takes a body documents 413; one that takes none ignores what is sent.
    const big = 'x'.repeat(10_000);
    await expectError(await t.call('POST', '/admin/v1/orgs/_search', { body: { pad: big } }), 413, 8);
    expect(documented('/admin/v1/orgs/_search', 'post')).toContain('413');
    const bodyless = await t.call('GET', '/admin/v1/languages', { headers: { 'content-type': 'application/json' } });
    expect(bodyless.status).toBe(200);
    const missingUser = await t.call('DELETE', '/management/v1/users/123', { body: { pad: big } });
    expect(missingUser.status).toBe(404);
    expect(documented('/management/v1/users/{userId}', 'delete')).not.toContain('413');
  });

  it('an export timeout below a millisecond ("1ns") is not a 500', async () => {
    const res = await t.call('POST', '/admin/v1/export', { body: { responseOutput: true, timeout: '1ns' } });
    expect(res.status).toBe(200);
    // The body is streamed: once the deadline passes it is cut off (an aborted, incomplete body).
    await res.text().catch(() => undefined);
  });

  it('a request id sent by the caller is echoed', async () => {
    const res = await t.call('GET', '/nowhere', { headers: { 'x-request-id': 'trace-123' } });
    expect(res.headers.get('x-request-id')).toBe('trace-123');
  });
});
