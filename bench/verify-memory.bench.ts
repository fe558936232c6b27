/**
 * identity-transfer verify's own cost against the organisation's size (issue 51): two export
 * documents of one organisation with N human users (as the export writes them, password hashes
 * included), generated as streams of 64 KiB chunks and compared by `compareExports` — the CLI's
 * comparison without the servers, whose export memory `bench:export-memory` measures. Reported per
 * case: time, CPU time (this process's; the document's generation included, about a tenth), users
 * compared per CPU second, this process's peak RSS (VmHWM), the most resources waiting at once.
 *   same:    the target's document equals the source's (3 users changed at the target);
 *   missing: the target lacks the last tenth of the users (their digests are held until the end).
 *
 *   npm run bench:verify-memory          (from the repo root; BENCH_USERS=1000000 by default)
 */
import { readFileSync } from 'node:fs';
import { compareExports } from '../packages/client/src/cli/verify.js';

const USERS = Number(process.env.BENCH_USERS ?? 1_000_000);
const CASES = (process.env.BENCH_CASES ?? 'same,missing').split(',');
const BCRYPT = '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy';

function peakMiB(): number {
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN) / 1024;
}

/** An export of one organisation with `users` users, in chunks of about 64 KiB; `changed` users get another first name. */
async function* document(users: number, changed: Set<number>): AsyncGenerator<Uint8Array> {
  let chunk = '{"orgs":[{"orgId":"310000000000000000","org":{"name":"Bench Co"},"orgState":"ORG_STATE_ACTIVE","humanUsers":[';
  for (let i = 0; i < users; i++) {
    const id = `31${String(i + 1).padStart(16, '0')}`;
    chunk += `${i ? ',' : ''}${JSON.stringify({
      userId: id,
      user: {
        userName: `user${i}`,
        profile: { firstName: changed.has(i) ? 'Changed' : `First${i}`, lastName: 'Last', displayName: `First${i} Last`, preferredLanguage: 'en' },
        email: { email: `user${i}@example.com`, isEmailVerified: true },
        hashedPassword: { value: BCRYPT },
      },
      state: 'USER_STATE_ACTIVE',
    })}`;
    if (chunk.length >= 65536) {
      yield Buffer.from(chunk);
      chunk = '';
      // As a socket's chunks arrive: a turn of the event loop between them.
      if (i % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }
  yield Buffer.from(`${chunk}],"loginPolicy":{"allowUsernamePassword":true}}]}`);
}

for (const name of CASES) {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const changed = new Set([1, Math.floor(USERS / 2), USERS - 1]);
  const target = name === 'missing' ? document(Math.floor(USERS * 0.9), new Set()) : document(USERS, changed);
  const result = await compareExports(document(USERS, new Set()), target);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  const counts = { missing: 0, extra: 0, changed: 0 };
  for (const d of result.differences) counts[d.change]++;
  console.log(
    `${name.padEnd(8)} ${USERS} users: ${seconds.toFixed(1)} s, ${cpuSeconds.toFixed(1)} s of CPU (${Math.round(USERS / cpuSeconds)} users a side per CPU second), peak RSS ${peakMiB().toFixed(0)} MiB; ` +
      `${result.resources} resources, at most ${result.peakWaiting} waiting; ${counts.missing} missing, ${counts.extra} extra, ${counts.changed} changed`,
  );
}
