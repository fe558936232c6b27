// Preloaded into a CLI run by bench/import-memory.bench.ts (`node --import`): writes the process's
// peak resident set (VmHWM) to stderr as it exits, exactly, where sampling /proc from outside could
// miss the last moments of a short run.
import { readFileSync, writeSync } from 'node:fs';

process.on('exit', () => {
  const kib = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  if (kib) writeSync(2, `\npeak-rss-kib ${kib}\n`);
});
