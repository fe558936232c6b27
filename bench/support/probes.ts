/** Small authenticated GETs sent at a steady rate while something else runs: their latencies. */

export interface ProbeLatencies {
  p50: number;
  p99: number;
  max: number;
  count: number;
  failed: number;
}

/**
 * GETs every `intervalMs` until the returned `stop()`, each on its own (not waiting for the one
 * before), so a stalled server shows as late answers rather than as fewer requests.
 */
export function probeWhile(url: string, headers: Record<string, string>, intervalMs: number): () => Promise<ProbeLatencies> {
  const latencies: number[] = [];
  let failed = 0;
  /** Why the failed ones failed: a status, or the client's error. */
  const reasons = new Map<string, number>();
  const fail = (why: string) => {
    failed++;
    reasons.set(why, (reasons.get(why) ?? 0) + 1);
  };
  const inFlight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const t = performance.now();
    const p = fetch(url, { headers })
      .then(async (res) => {
        await res.arrayBuffer();
        if (res.status === 200) latencies.push(performance.now() - t);
        else fail(`HTTP ${res.status}`);
      })
      .catch((error: Error) => fail(String((error.cause as Error | undefined)?.message ?? error.message)))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }, intervalMs);
  return async () => {
    clearInterval(timer);
    await Promise.all(inFlight);
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] ?? NaN;
    if (failed) console.log(`  failed GETs: ${[...reasons].map(([why, n]) => `${n} × ${why}`).join(', ')}`);
    return { p50: at(0.5), p99: at(0.99), max: latencies.at(-1) ?? NaN, count: latencies.length, failed };
  };
}
