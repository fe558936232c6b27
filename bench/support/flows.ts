/**
 * The measurement of whole flows (a sign-in: several requests, redirects, a form) rather than one
 * request: as load.ts measures requests, with the same warm-up window and server CPU accounting.
 */
import type { LoadSettings, Measurement } from './load.js';
import { windowMeasurement } from './measurement.js';

/**
 * `concurrency` loops each running `flow` back to back for warm-up + `seconds`: only flows
 * completed after the warm-up count; a flow that throws counts as an error (and is logged once).
 */
export async function measureFlows(flow: (i: number) => Promise<void>, concurrency: number, run: LoadSettings, cpu: () => number | undefined): Promise<Measurement> {
  const latencies: number[] = [];
  let ok = 0;
  let errors = 0;
  let sent = 0;
  let firstError: unknown;
  const start = performance.now();
  const windowStart = start + run.warmup * 1000;
  const end = windowStart + run.duration * 1000;
  let cpuAtStart: number | undefined;
  const timer = setTimeout(() => (cpuAtStart = cpu()), run.warmup * 1000);
  await Promise.all(
    Array.from({ length: concurrency }, async (_, i) => {
      while (performance.now() < end) {
        const began = performance.now();
        sent++;
        try {
          await flow(i);
          ok++;
          if (began >= windowStart || performance.now() >= windowStart) {
            if (performance.now() <= end) latencies.push(performance.now() - began);
          }
        } catch (error) {
          errors++;
          firstError ??= error;
        }
      }
    }),
  );
  clearTimeout(timer);
  const cpuAtEnd = cpu();
  if (firstError) process.stdout.write(`  sign-in failed ${errors} times, first: ${firstError instanceof Error ? firstError.message : String(firstError)}\n`);
  const seconds = Math.min(performance.now(), end) / 1000 - windowStart / 1000;
  return windowMeasurement(latencies, seconds, cpuAtStart !== undefined && cpuAtEnd !== undefined ? cpuAtEnd - cpuAtStart : undefined, { ok, non2xx: 0, errors, statusCodes: {}, sent });
}
