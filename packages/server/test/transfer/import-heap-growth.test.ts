/**
 * The main thread's heap while an import runs (runtime/heap-growth.ts): garbage that outlives the
 * young generation (what an import's batches leave behind on PostgreSQL: parameters and messages
 * that lived across a round trip) is collected before the old generation grows to a small multiple
 * of what is live, rather than V8's up to fourfold, which cost a job on PostgreSQL 305–346 MiB of
 * peak growth at a million users (BENCHMARKS.md, "Imports at a million users").
 */

import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { getHeapSpaceStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { createSpool } from '../../src/domain/transfer/spool.js';
import { heapGrowthBounded } from '../../src/runtime/heap-growth.js';

const MiB = 1024 * 1024;
const oldSpaceUsed = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;

/**
 * Batches of user rows (~1 MiB each), each kept while the next RING are made (longer than the young
 * generation keeps anything: promoted), then dropped; the old generation's peak, looked at between batches.
 */
async function promoteGarbage(batches: number): Promise<{ start: number; peak: number }> {
  const RING = 32;
  const start = oldSpaceUsed();
  const ring: unknown[][] = [];
  let peak = start;
  for (let i = 0; i < batches; i++) {
    ring.push(Array.from({ length: 8192 }, (_, k) => ({ userId: String(219387465738291000n + BigInt(i * 8192 + k)), state: 'USER_STATE_ACTIVE' })));
    if (ring.length > RING) ring.shift();
    if (i % 4 === 0) {
      await yieldToEventLoop();
      peak = Math.max(peak, oldSpaceUsed());
    }
  }
  return { start, peak };
}

describe('heap growth during an import', () => {
  it('is bounded from the moment the import has its spool until the spool is removed', async () => {
    expect(heapGrowthBounded()).toBe(false);
    const first = await createSpool();
    const second = await createSpool();
    expect(heapGrowthBounded()).toBe(true);
    await first.remove();
    // Imports running together share the bound: it holds until the last one ends.
    expect(heapGrowthBounded()).toBe(true);
    await second.remove();
    await second.remove();
    expect(heapGrowthBounded()).toBe(false);
  });

  it('keeps the old generation near its live size while garbage is promoted steadily', async () => {
    const spool = await createSpool();
    try {
      // ~600 MiB promoted in all; ~40 MiB of it live at any time (the ring), beside what was live before.
      const { start, peak } = await promoteGarbage(600);
      // Unbounded, V8 lets the old generation reach up to four times its live size (here 133–147 MiB
      // over ~48 MiB live, in vitest on Node 24); bounded, about one and a half times plus what
      // incremental marking lets through (53–74 MiB).
      expect(peak / MiB).toBeLessThan(2 * ((start + 40 * MiB) / MiB));
    } finally {
      await spool.remove();
    }
  });
});
