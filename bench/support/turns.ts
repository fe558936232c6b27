/**
 * Measurement in turns, the way every comparison of `npm run bench` is made (issue 14, BENCHMARKS.md
 * round 10): all sides started first, then each warmed up and measured in four alternating windows,
 * pooled per side (load.ts measureAlternating). Measured one after the other, the same process's CPU
 * per request drifted by 15-30 % between runs minutes apart, which made each ratio depend on the minute.
 *
 * Server CPU per request is the server process's user + system CPU (children.ts, /proc/<pid>/stat)
 * over the measured window ÷ the responses in it; a side served by several processes sums theirs (sumCpu).
 */
import type { Child } from './children.js';
import { type Measurement, measure, measureAlternating } from './load.js';
import type { Row } from './report.js';
import { settings } from './run-settings.js';

/** One side of a comparison measured in turns (measureAlternating), and how its row is made. */
export interface Side {
  target: Parameters<typeof measure>[0];
  serverCpuSeconds: () => number | undefined;
  row: (m: Measurement) => Promise<Row>;
}

/** Measures the sides in turns and returns their rows, in the order given. */
export async function inTurns(sides: Side[]): Promise<Row[]> {
  if (sides.length === 0) return [];
  const measured = await measureAlternating(sides, settings);
  return Promise.all(sides.map((side, i) => side.row(measured[i])));
}

/** The CPU seconds of several processes serving one side, summed (undefined if any is unknown). */
export const sumCpu = (servers: Child[]) => () =>
  servers.reduce<number | undefined>((sum, server) => {
    const cpu = server.cpuSeconds();
    return sum === undefined || cpu === undefined ? undefined : sum + cpu;
  }, 0);

/** A side whose answers need no check: its row is the measurement under `name`. */
export const readSide = (child: Child, target: Parameters<typeof measure>[0], name: string, store: string): Side => ({
  target,
  serverCpuSeconds: child.cpuSeconds,
  row: async (m) => ({ target: name, store, m }),
});
