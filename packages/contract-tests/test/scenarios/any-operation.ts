import { expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';
import { operations, servedOutsideApi } from '../support/spec.js';

/**
 * Statuses every operation can answer whatever it does, produced on each: a body over the limit
 * (1 MiB here) on every operation that takes one → 413; an `x-service-orgid` naming no
 * organisation → 403 on an operation no permission guards.
 */
export function anyOperationScenarios(h: () => Harness) {
  it('a body over the limit → 413 on every operation that takes a body', async () => {
    const token = h().instance.adminToken;
    const body = JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) });
    // The import and the import job have their own, larger limit (transfer.ts, import-jobs.ts exercise it).
    for (const op of operations.filter((o) => o.operation.requestBody && !servedOutsideApi(o.operation) && o.operationId !== 'ImportData' && o.operationId !== 'StartImportJob')) {
      const path = op.path.replace(/\{[^}]+\}/g, '1');
      const res = await h().fetch(path, { method: op.method.toUpperCase(), token, headers: { 'content-type': 'application/json' }, body });
      expect(res.status, `${op.operationId}`).toBe(413);
    }
  });

  it('an x-service-orgid naming no organisation → 403, also where no permission is needed', async () => {
    const res = await h().fetch('/admin/v1/languages', { token: h().instance.adminToken, headers: { 'x-service-orgid': '404404' } });
    expect(res.status).toBe(403);
  });
}
