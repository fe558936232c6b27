/**
 * What `identity-transfer export` says of the document it wrote (src/cli/identity-transfer.ts,
 * exportedOrgs): each organisation's users, counted from the file as a stream. The file was parsed
 * whole before (JSON.parse): a million users' document (346 MiB) would take gigabytes.
 */
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { expect, it } from 'vitest';
import { exportedOrgs } from '../src/cli/identity-transfer.js';

const MiB = 1024 * 1024;
const BCRYPT = '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy';

/** An export of `users` human users (ZITADEL's 18-digit ids) in one organisation, and two machine users in another. */
async function writeExport(file: string, users: number): Promise<void> {
  const out = createWriteStream(file);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write('{"orgs":[{"orgId":"219387465738290001","org":{"name":"Big"},"humanUsers":[');
  for (let n = 0; n < users; n += 1000) {
    const batch: string[] = [];
    for (let i = n; i < Math.min(users, n + 1000); i++) {
      const id = String(219387465738291000n + BigInt(i));
      batch.push(
        `${i ? ',' : ''}{"userId":"${id}","user":{"userName":"user${i}","profile":{"firstName":"First${i}","lastName":"Last","displayName":"First${i} Last","preferredLanguage":"en"},"email":{"email":"user${i}@example.com","isEmailVerified":true},"hashedPassword":{"value":"${BCRYPT}"}},"state":"USER_STATE_ACTIVE"}`,
      );
    }
    await write(batch.join(''));
  }
  await write(']},{"orgId":"219387465738290002","machineUsers":[{"userId":"1","user":{"userName":"a","name":"a"}},{"userId":"2","user":{"userName":"b","name":"b"}}]}]}');
  out.end();
  await once(out, 'finish');
}

it("counts each organisation's users without holding the document", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'exported-orgs-'));
  try {
    const file = join(dir, 'export.json');
    await writeExport(file, 200_000); // ~70 MiB
    let peak = 0;
    const start = getHeapStatistics().used_heap_size;
    const sampler = setInterval(() => (peak = Math.max(peak, getHeapStatistics().used_heap_size)), 2);
    const orgs = await exportedOrgs(file);
    clearInterval(sampler);
    expect(orgs.map((o) => [o.orgId, o.humanUsers ?? 0, o.machineUsers ?? 0])).toEqual([
      ['219387465738290001', 200_000, 0],
      ['219387465738290002', 0, 2],
    ]);
    expect((orgs[0]!.org as { name: string }).name).toBe('Big');
    // Parsed whole: the text and then 200,000 users as objects, ~300 MiB of heap.
    expect((Math.max(peak, getHeapStatistics().used_heap_size) - start) / MiB).toBeLessThan(48);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
