/**
 * The main thread's heap kept near its live size while an import runs (ARCHITECTURE.md, "Imports in
 * bounded memory"). V8 collects its old generation only once it has grown to a multiple of what was
 * live after the last full collection, and on a machine where the heap may reach 2 GiB or more that
 * multiple goes up to 4. An import promotes a steady trickle of objects that die soon after (on
 * PostgreSQL above all: each batch's insert parameters and protocol messages live across the round
 * trip, and the reader's next batch waits beside them), so over a million users that garbage filled
 * the old generation to about four times the ~75 MiB the server holds: 305–346 MiB of peak growth
 * for a job on PostgreSQL, depending on where V8's heuristics put the limit (BENCHMARKS.md,
 * "Imports at a million users"). While at least one import runs, the factor is 1 + 50 % instead:
 * a full collection about every 35 MiB promoted, ~1 % of a core during an import.
 *
 * `--heap-growing-percent` is read by V8 at each full collection, so setting it at run time takes
 * effect at the next one; it is set back to V8's own heuristics (0) when the last import ends. A
 * value an operator gave on the command line is overridden while imports run.
 */
import { setFlagsFromString } from 'node:v8';

/** The old generation's growth allowed over its live size while an import runs, in percent. */
export const IMPORT_HEAP_GROWING_PERCENT = 50;

let holders = 0;

/** Bounds the heap's growth until the returned function is called (once; imports running together share the bound). */
export function boundHeapGrowth(): () => void {
  if (holders++ === 0) setFlagsFromString(`--heap-growing-percent=${IMPORT_HEAP_GROWING_PERCENT}`);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--holders === 0) setFlagsFromString('--heap-growing-percent=0');
  };
}

/** Whether an import holds the bound now. */
export const heapGrowthBounded = (): boolean => holders > 0;
