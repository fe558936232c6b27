/**
 * One log line per API request at LOG_LEVEL=info (request id, method, path, status, duration, the
 * caller), none of it built above info (http/middleware/request-context.ts asks Logger.isEnabled).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger, LOG_LEVELS } from '../../src/log.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

it('a logger says which levels it writes', () => {
  const warn = createLogger('warn', () => undefined);
  expect(['debug', 'info', 'warn', 'error'].map((level) => warn.isEnabled!(level as 'info'))).toEqual([false, false, true, true]);
  const silent = createLogger('silent', () => undefined);
  expect(LOG_LEVELS.filter((l) => l !== 'silent').some((level) => silent.isEnabled!(level as 'info'))).toBe(false);
});

describeEachStore('the request log line', (dialect) => {
  let info: TestInstance;
  let warn: TestInstance;
  const infoLines: Record<string, unknown>[] = [];
  const warnLines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    info = await createTestInstance(dialect, { logger: createLogger('info', (line) => infoLines.push(JSON.parse(line))) });
    warn = await createTestInstance(dialect, { logger: createLogger('warn', (line) => warnLines.push(JSON.parse(line))) });
  });
  afterAll(async () => {
    await info.close();
    await warn.close();
  });

  it('at info: one line per request with its id, method, path, status, duration and caller', async () => {
    const res = await info.call('PUT', '/admin/v1/text/message/verifyemail/en', { body: { title: 'logged' } });
    expect(res.status).toBe(200);
    const lines = infoLines.filter((l) => l.msg === 'request' && l.requestId === res.headers.get('x-request-id'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', method: 'PUT', path: '/admin/v1/text/message/verifyemail/en', status: 200 });
    expect(typeof lines[0].durationMs).toBe('number');
    expect(typeof lines[0].userId).toBe('string');
    const refused = await info.call('PUT', '/admin/v1/text/message/verifyemail/en', { body: { titel: 'x' } });
    expect(infoLines.find((l) => l.msg === 'request' && l.requestId === refused.headers.get('x-request-id'))).toMatchObject({ status: 400 });
  });

  it('a REST call an RPC makes in process: no line of its own (the RPC logs one), no request id header on its answer, the caller handed back', async () => {
    const rpcCall: { userId?: string } = {};
    const headers = { authorization: `Bearer ${info.adminToken}`, 'content-type': 'application/json', 'x-request-id': 'in-process-1' };
    const res = await info.app.request('/admin/v1/text/message/verifyemail/en', { method: 'PUT', headers, body: JSON.stringify({ title: 'in process' }) }, { rpcCall });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeNull();
    expect(rpcCall.userId).toBe(info.adminUserId);
    expect(infoLines.filter((l) => l.requestId === 'in-process-1')).toEqual([]);
  });

  it('above info: no request lines, and the request id is still answered', async () => {
    const res = await warn.call('PUT', '/admin/v1/text/message/verifyemail/en', { body: { title: 'quiet' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^[\w.:-]+$/);
    expect(warnLines.filter((l) => l.msg === 'request')).toEqual([]);
  });
});
