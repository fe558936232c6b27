/**
 * One autocannon run of warm-up + measured seconds on the same connections; only responses
 * completed after the warm-up count for throughput and latency. (Two separate runs would open
 * fresh connections for the measured one, whose first burst then lands in the figures.)
 * Failures count over the whole run.
 */
import autocannon, { type Options } from 'autocannon';
import { type GrpcTarget, measureGrpc } from './h2-load.js';
import { type LoadSettings, type Measurement, windowMeasurement } from './measurement.js';

export type { LoadSettings, Measurement };

type HttpTarget = Omit<Options, 'connections' | 'duration'>;
/** An HTTP/1.1 request (autocannon) or a unary gRPC call over HTTP/2 (h2-load.ts). */
type Target = HttpTarget | GrpcTarget;

const isGrpc = (target: Target | HttpTarget[]): target is GrpcTarget => !Array.isArray(target) && 'message' in target;

/**
 * `target` may be several (e.g. two server processes behind no balancer): the connections are
 * split evenly between them, run at once, and counted together; `serverCpuSeconds` should then
 * sum the processes' CPU.
 */
export async function measure(target: Target | HttpTarget[], settings: LoadSettings, serverCpuSeconds?: () => number | undefined): Promise<Measurement> {
  if (isGrpc(target)) return measureGrpc(target, settings, serverCpuSeconds);
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
  return windowMeasurement(latencies, windowSeconds, cpuUsed, {
    ok: run['2xx'],
    non2xx: run.non2xx,
    errors: run.errors,
    statusCodes: Object.fromEntries(Object.entries(run.statusCodeStats ?? {}).map(([code, s]) => [code, s.count])),
    sent: run.requests.sent,
  });
}

/** Measurements of one target over several windows as one: requests, CPU and latencies pooled. */
export function pool(parts: Measurement[]): Measurement {
  const latencies = parts.flatMap((m) => m.window.latencies);
  const seconds = parts.reduce((sum, m) => sum + m.window.seconds, 0);
  const cpu = parts.every((m) => m.window.cpuSeconds !== undefined) ? parts.reduce((sum, m) => sum + m.window.cpuSeconds!, 0) : undefined;
  const sum = (field: 'ok' | 'non2xx' | 'errors' | 'sent') => parts.reduce((total, m) => total + m[field], 0);
  const statusCodes: Record<string, number> = {};
  for (const m of parts) for (const [code, n] of Object.entries(m.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  return windowMeasurement(latencies, seconds, cpu, { ok: sum('ok'), non2xx: sum('non2xx'), errors: sum('errors'), statusCodes, sent: sum('sent') });
}

/**
 * Targets to be compared with each other (the service and its peer), measured in turns: each is
 * warmed up once, then `rounds` windows of `duration / rounds` seconds each, alternating, pooled
 * per target. On a shared 2-CPU machine the CPU cost of one process drifts by ±15 % from one
 * window to the next; alternating puts both sides under the same drift, so their ratio is steadier
 * than two back-to-back runs give.
 */
export async function measureAlternating(targets: { target: Target | HttpTarget[]; serverCpuSeconds?: () => number | undefined }[], settings: LoadSettings, rounds = 4): Promise<Measurement[]> {
  const parts: Measurement[][] = targets.map(() => []);
  const slice = { ...settings, duration: settings.duration / rounds, warmup: 0 };
  const warmups: Measurement[] = [];
  for (const t of targets) warmups.push(await measure(t.target, { ...settings, duration: 0.5, warmup: settings.warmup }, t.serverCpuSeconds));
  for (let round = 0; round < rounds; round++) {
    for (const [i, t] of targets.entries()) parts[i].push(await measure(t.target, { ...slice, warmup: 0.5 }, t.serverCpuSeconds));
  }
  // The warm-up's requests count (a write's event checks, failures), its window does not.
  return parts.map((windows, i) => withRequestsOf(pool(windows), warmups[i]));
}

function withRequestsOf(m: Measurement, other: Measurement): Measurement {
  const statusCodes = { ...m.statusCodes };
  for (const [code, n] of Object.entries(other.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  return { ...m, ok: m.ok + other.ok, non2xx: m.non2xx + other.non2xx, errors: m.errors + other.errors, sent: m.sent + other.sent, statusCodes };
}
