/**
 * What a load run measured, and how a window's figures are made from its latencies, CPU and
 * counts: one definition for autocannon's runs (load.ts) and the gRPC load generator (h2-load.ts).
 */
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
  /** What pooling several windows needs (measureAlternating). */
  window: { seconds: number; latencies: number[]; cpuSeconds?: number };
}

type Counts = Pick<Measurement, 'ok' | 'non2xx' | 'errors' | 'statusCodes' | 'sent'>;

/** The figures of a measured window: `latencies` (ms, sorted here), its length in seconds, the server's CPU seconds in it. */
export function windowMeasurement(latencies: number[], seconds: number, cpuSeconds: number | undefined, counts: Counts): Measurement {
  latencies.sort((a, b) => a - b);
  const percentile = (p: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] : NaN);
  return {
    requestsPerSecond: seconds > 0 ? latencies.length / seconds : 0,
    p50: percentile(50),
    p99: percentile(99),
    measured: latencies.length,
    ...counts,
    serverCpuMs: cpuSeconds !== undefined && latencies.length > 0 ? (1000 * cpuSeconds) / latencies.length : undefined,
    window: { seconds, latencies, cpuSeconds },
  };
}
