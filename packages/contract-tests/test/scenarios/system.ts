import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';

export function systemScenarios(h: () => Harness) {
  it('healthz, readyz, openapi.json and docs answer as documented', async () => {
    const api = h().anonymous;
    expect((await api.GET('/healthz')).data?.status).toBe('ok');
    expect((await api.GET('/readyz')).response.status).toBe(200);
    h().setShuttingDown(true);
    expect((await api.GET('/readyz')).response.status).toBe(503);
    h().setShuttingDown(false);
    expect((await api.GET('/openapi.json')).response.status).toBe(200);
    const docs = await api.GET('/docs', { parseAs: 'text' });
    expect(docs.data).toContain('<html');
  });
}
