// Preload for the bench's servers (BENCH_LAG, bench/import-memory.bench.ts): appends to `${LAG_LOG}.<pid>` a
// line for each time a 10 ms interval timer of the main thread fired more than LAG_MS (50) late, with the
// thread's CPU time in that stretch. The CPU time tells the process's own work (a long synchronous stretch)
// from a loaded machine (the thread waiting for a core: a long gap, little CPU).
import { appendFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

if (isMainThread && process.env.LAG_LOG && process.threadCpuUsage) {
  const out = `${process.env.LAG_LOG}.${process.pid}`;
  const lateMs = Number(process.env.LAG_MS ?? 50);
  const cpuMs = () => {
    const { user, system } = process.threadCpuUsage();
    return (user + system) / 1000;
  };
  let last = performance.now();
  let lastCpu = cpuMs();
  setInterval(() => {
    const now = performance.now();
    const cpu = cpuMs();
    if (now - last > lateMs) appendFileSync(out, `${(now / 1000).toFixed(2)}s gap=${(now - last).toFixed(0)} cpu=${(cpu - lastCpu).toFixed(0)}\n`);
    last = now;
    lastCpu = cpu;
  }, 10).unref();
}
