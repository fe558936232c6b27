import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadSpec } from '../../src/http/spec.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

describeEachStore('probes, spec and docs', (dialect) => {
  let t: TestInstance;
  let shuttingDown = false;
  beforeAll(async () => {
    t = await createTestInstance(dialect, { isShuttingDown: () => shuttingDown });
  });
  afterAll(() => t.close());

  it('healthz answers 200', async () => {
    expect((await t.call('GET', '/healthz', { token: null })).status).toBe(200);
  });

  it('readyz answers 200, then 503 once shutdown began', async () => {
    expect((await t.call('GET', '/readyz', { token: null })).status).toBe(200);
    shuttingDown = true;
    expect((await t.call('GET', '/readyz', { token: null })).status).toBe(503);
    shuttingDown = false;
  });

  it('/openapi.json is the hand-written spec', async () => {
    const res = await t.call('GET', '/openapi.json', { token: null });
    expect(res.status).toBe(200);
    const served = await res.json();
    expect(served).toEqual(JSON.parse(JSON.stringify(loadSpec())));
    expect(served.openapi).toBe('3.1.0');
    expect(served.paths['/admin/v1/text/message/verifyemail/{language}'].put.operationId).toBe('SetDefaultVerifyEmailMessageText');
    expect(JSON.stringify(served)).not.toContain('.yaml');
  });

  it('/docs serves an HTML reference with its assets from this process', async () => {
    const res = await t.call('GET', '/docs', { token: null });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('/docs/swagger-ui-bundle.js');
    const js = await t.call('GET', '/docs/swagger-ui-bundle.js', { token: null });
    expect(js.status).toBe(200);
    expect((await js.text()).length).toBeGreaterThan(100_000);
    expect((await t.call('GET', '/docs/init.js', { token: null })).status).toBe(200);
  });
});
