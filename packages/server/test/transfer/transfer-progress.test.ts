import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';
import { richDocument } from '../support/transfer-documents.js';

describeEachStore('export and import log their progress per organisation', (dialect) => {
  let t: TestInstance;
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    t = await createTestInstance(dialect, { logger: createLogger('info', (line) => lines.push(JSON.parse(line))) });
  });
  afterAll(() => t.close());

  const progress = (step: string) => lines.filter((l) => l.msg === 'transfer progress' && l.step === step);

  it('one line per organisation imported, then per organisation exported, with the request id', async () => {
    const res = await t.call('POST', '/admin/v1/import', { body: { timeout: '1m', dataOrgs: richDocument('7') } });
    expect(res.status).toBe(200);
    const imported = progress('import');
    expect(imported.map((l) => [l.done, l.total])).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(imported[0].requestId).toBe(res.headers.get('x-request-id'));

    const exp = await t.call('POST', '/admin/v1/export', { body: { response_output: true } });
    expect(exp.status).toBe(200);
    const { orgs } = await exp.json();
    const exported = progress('export');
    expect(exported).toHaveLength(orgs.length);
    expect(exported.at(-1)).toMatchObject({ done: orgs.length, total: orgs.length });
  });
});
