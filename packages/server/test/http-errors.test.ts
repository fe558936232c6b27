import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestInstance, describeEachStore, type TestInstance } from './support/instance.js';

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

  it('a body over the limit → 413', async () => {
    await expectError(await t.call('PUT', '/admin/v1/text/message/verifyemail/en', { body: { footerText: 'x'.repeat(10_000) } }), 413, 8);
  });

  it('a request id sent by the caller is echoed', async () => {
    const res = await t.call('GET', '/nowhere', { headers: { 'x-request-id': 'trace-123' } });
    expect(res.headers.get('x-request-id')).toBe('trace-123');
  });
});
