/**
 * `identity-transfer import FILE` where FILE is a whole import request (`{"timeout":…,"data_orgs":…}`,
 * as ZITADEL's documentation gives its bulk import): the request is sent as the file holds it, with
 * the command line's options in place of the file's, and the document is never held (issue 49: the
 * CLI read such a file whole and parsed it, hundreds of MiB for a million users).
 */
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { requestBody, scanRequestFile } from '../src/cli/import-request-file.js';

const MiB = 1024 * 1024;
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const dir = mkdtempSync(join(tmpdir(), 'import-request-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function text(body: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of body) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString('utf8');
}

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('a whole import request in a file', () => {
  it('is sent as the file holds it, with the options given in place of the file’s (either spelling)', async () => {
    const document = { orgs: [{ orgId: '104133391254874632', org: { name: 'A "quoted" {brace} [bracket] \\ name' }, humanUsers: [{ userId: '1', user: { userName: 'u,1' } }] }] };
    const path = file('request.json', `\n { "dry_run" : false,\n "data_orgs": ${JSON.stringify(document, null, 2)} ,"timeout":"10m", "conflict_policy":"SKIP", "x\\"y": [1, {"z": "}"}] }\n`);
    const scanned = await scanRequestFile(path);
    expect(scanned.documentKey).toBe('data_orgs');
    expect(scanned.fields).toEqual({ dry_run: false, timeout: '10m', conflict_policy: 'SKIP', 'x"y': [1, { z: '}' }] });
    const sent = JSON.parse(await text(requestBody(path, scanned, { timeout: '1m', dryRun: true })));
    expect(sent).toEqual({ conflict_policy: 'SKIP', 'x"y': [1, { z: '}' }], timeout: '1m', dryRun: true, data_orgs: document });
    // Nothing given: the file's own fields.
    expect(JSON.parse(await text(requestBody(path, scanned, {})))).toEqual({ dry_run: false, timeout: '10m', conflict_policy: 'SKIP', 'x"y': [1, { z: '}' }], data_orgs: document });
  });

  it('finds the document first, last or alone, under each of its names', async () => {
    for (const key of ['dataOrgs', 'data_orgs', 'dataOrgsv1', 'data_orgsv1']) {
      const alone = file(`alone-${key}.json`, `{"${key}":{"orgs":[]}}`);
      expect(JSON.parse(await text(requestBody(alone, await scanRequestFile(alone), { timeout: '5m' })))).toEqual({ timeout: '5m', [key]: { orgs: [] } });
      const first = file(`first-${key}.json`, `{"${key}":{"orgs":[{"orgId":"1"}]},"timeout":"2m"}`);
      expect(JSON.parse(await text(requestBody(first, await scanRequestFile(first), {})))).toEqual({ timeout: '2m', [key]: { orgs: [{ orgId: '1' }] } });
    }
  });

  it('refuses a file that is not such a request, saying why', async () => {
    await expect(scanRequestFile(file('array.json', '[{"dataOrgs":{}}]'))).rejects.toThrow(/is not an import request: it is not a JSON object/);
    await expect(scanRequestFile(file('none.json', '{"timeout":"1m"}'))).rejects.toThrow(/has no document/);
    await expect(scanRequestFile(file('cut.json', '{"timeout":"1m","dataOrgs":{"orgs":['))).rejects.toThrow(/ends before its last/);
    await expect(scanRequestFile(file('two.json', '{"dataOrgs":{},"data_orgs":{}}'))).rejects.toThrow(/two documents/);
    await expect(scanRequestFile(file('bad.json', '{"timeout":1m,"dataOrgs":{}}'))).rejects.toThrow(/value of "timeout" is not JSON/);
  });

  it('never holds the document: 128 MiB of users scanned and sent with a few MiB in memory', async () => {
    const path = join(dir, 'large.json');
    const out = createWriteStream(path);
    const user = (n: number) => `{"userId":"${219387465738291000n + BigInt(n)}","user":{"userName":"user${n}@example.com","profile":{"firstName":"F {${n}}","lastName":"L \\"${n}\\""}}}`;
    out.write('{"timeout":"10m","dataOrgs":{"orgs":[{"orgId":"1","org":{"name":"big"},"humanUsers":[');
    let written = 0;
    for (let n = 0; written < 128 * MiB; n++) {
      const line = `${n ? ',' : ''}${user(n)}`;
      written += line.length;
      if (!out.write(line)) await once(out, 'drain');
    }
    out.end(']}]},"conflictPolicy":"SKIP"}');
    await once(out, 'finish');
    gc();
    // The heap: where the file's text and its parse would be. (ArrayBuffers just freed may still be
    // counted right after a collection: the file's chunks in flight are not what is measured.)
    const held = () => process.memoryUsage().heapUsed;
    const before = held();
    const scanned = await scanRequestFile(path);
    expect(scanned.fields).toEqual({ timeout: '10m', conflictPolicy: 'SKIP' });
    let sent = 0;
    let during = 0;
    let tail = '';
    for await (const chunk of requestBody(path, scanned, { timeout: '30m' })) {
      sent += chunk.length;
      if (sent > 64 * MiB && !during) {
        gc();
        during = held() - before;
      }
      tail = (tail + Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1')).slice(-64);
    }
    expect(sent).toBeGreaterThan(128 * MiB);
    expect(tail.endsWith(']}]}}')).toBe(true);
    // Reading it whole (the fault: readFileSync and JSON.parse) holds the file's text and more: 128 MiB or more.
    expect(during / MiB).toBeLessThan(16);
  }, 120_000);
});
