/**
 * One autocannon run of warm-up + measured seconds on the same connections; only responses
 * completed after the warm-up count for throughput and latency. (Two separate runs would open
 * fresh connections for the measured one, whose first burst then lands in the figures.)
 * Failures count over the whole run.
 */
import autocannon, { type Options } from 'autocannon';

export interface LoadSettings {
  connections: number;
  /** Seconds measured. */
  duration: number;
  /** Seconds of load before the measured window (JIT, caches, SQLite page cache). */
  warmup: number;
}

export interface Measurement {
  requestsPerSecond: number;
  /** Latency percentiles of the responses in the measured window, in ms. */
  p50: number;
  p99: number;
  /** Responses in the measured window. */
  measured: number;
  /** 2xx answers over the whole run, warm-up included (every one of them wrote). */
  ok: number;
  non2xx: number;
  /** Connection errors and timeouts: requests without any response. */
  errors: number;
  statusCodes: Record<string, number>;
  /** Requests sent, answered or not (those in flight at the end may still have been processed). */
  sent: number;
  /** The server's CPU time per response in the measured window (ms), when known. */
  serverCpuMs?: number;
}

type Target = Omit<Options, 'connections' | 'duration'>;

/**
 * `target` may be several (e.g. two server processes behind no balancer): the connections are
 * split evenly between them, run at once, and counted together; `serverCpuSeconds` should then
 * sum the processes' CPU.
 */
export async function measure(
  target: Target | Target[],
  settings: LoadSettings,
  serverCpuSeconds?: () => number | undefined,
): Promise<Measurement> {
  const targets = Array.isArray(target) ? target : [target];
  const latencies: number[] = [];
  let cpuAtWindowStart: number | undefined;
  let windowStart = Number.POSITIVE_INFINITY;
  const instances = targets.map((t, i) => {
    // Connections split evenly, the first ones taking the remainder.
    const connections = Math.floor(settings.connections / targets.length) + (i < settings.connections % targets.length ? 1 : 0);
    return autocannon({ ...t, connections, duration: settings.warmup + settings.duration });
  });
  const timer = setTimeout(() => {
    windowStart = performance.now();
    cpuAtWindowStart = serverCpuSeconds?.();
  }, settings.warmup * 1000);
  for (const instance of instances) {
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
      if (performance.now() >= windowStart) latencies.push(responseTime);
    });
  }
  const runs = await Promise.all(instances);
  const run = {
    '2xx': runs.reduce((sum, r) => sum + r['2xx'], 0),
    non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    requests: { sent: runs.reduce((sum, r) => sum + r.requests.sent, 0) },
    statusCodeStats: runs.reduce<Record<string, { count: number }>>((all, r) => {
      for (const [code, stat] of Object.entries(r.statusCodeStats ?? {})) all[code] = { count: (all[code]?.count ?? 0) + stat.count };
      return all;
    }, {}),
  };
  clearTimeout(timer);
  const windowSeconds = (performance.now() - windowStart) / 1000;
  const cpuAtEnd = serverCpuSeconds?.();
  const cpuUsed = cpuAtWindowStart !== undefined && cpuAtEnd !== undefined ? cpuAtEnd - cpuAtWindowStart : undefined;
  latencies.sort((a, b) => a - b);
  const percentile = (p: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] : NaN);
  return {
    requestsPerSecond: windowSeconds > 0 ? latencies.length / windowSeconds : 0,
    p50: percentile(50),
    p99: percentile(99),
    measured: latencies.length,
    ok: run['2xx'],
    non2xx: run.non2xx,
    errors: run.errors,
    statusCodes: Object.fromEntries(Object.entries(run.statusCodeStats ?? {}).map(([code, s]) => [code, s.count])),
    sent: run.requests.sent,
    serverCpuMs: cpuUsed !== undefined && latencies.length > 0 ? (1000 * cpuUsed) / latencies.length : undefined,
  };
}
