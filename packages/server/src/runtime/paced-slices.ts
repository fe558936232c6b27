/**
 * Long work on the event loop's thread, in slices of about SLICE_MS with a turn of the loop between
 * two (issue 49). On SQLite every statement of an import runs on that thread (better-sqlite3 is
 * synchronous): a batch of 200 users took 18 ms on a quiet machine and 60–120 ms on a loaded one,
 * and every request waited as long. A fixed number of rows cannot bound that: what a row costs
 * depends on its size, the store, the machine. So the slice's size follows what the last slice
 * cost: as many items as fit SLICE_MS at that rate, between MIN_ITEMS and the caller's maximum.
 *
 * The cost is the thread's CPU time where Node gives it (process.threadCpuUsage, Node 23.9+), else
 * the wall clock: a thread that waits for a core (a loaded machine) or for its database's answers
 * (PostgreSQL, where the loop turns at every round trip anyway) did not do more work, and its
 * slices should not shrink to a few rows, at a round trip each.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';

/** Work per slice, in ms of the thread's CPU time. */
export const SLICE_MS = 15;
/** Fewest items in a slice, whatever they cost: each slice has a fixed cost of its own (its queries). */
const MIN_ITEMS = 10;
/** A slice grows at most this many times over the last one (one fast slice is not yet a trend). */
const MAX_GROWTH = 2;

type CpuUsage = { user: number; system: number };
const threadCpuUsage = (process as { threadCpuUsage?: () => CpuUsage }).threadCpuUsage?.bind(process);

/** Whether `workClock` is the thread's CPU time (Node 23.9+: the project's runtime), not the wall clock. */
export const workClockIsCpu = threadCpuUsage !== undefined;

/** ms of work so far: the thread's CPU time, else the wall clock. */
export const workClock: () => number = threadCpuUsage
  ? () => {
      const { user, system } = threadCpuUsage();
      return (user + system) / 1000;
    }
  : () => performance.now();

export class SlicePacer {
  private size: number;

  /** Slices of `maxItems` at most, aiming at `sliceMs` of work each; the first of MIN_ITEMS (nothing is known yet of what an item costs). */
  constructor(
    private readonly maxItems: number,
    private readonly sliceMs = SLICE_MS,
    private readonly clock = workClock,
  ) {
    this.size = Math.min(MIN_ITEMS, maxItems);
  }

  /** The items a slice takes now. */
  get sliceSize(): number {
    return this.size;
  }

  /** `work` over `items` a slice at a time, in order, with a turn of the event loop after each slice. */
  async each<T>(items: readonly T[], work: (slice: T[]) => Promise<void>): Promise<void> {
    for (let at = 0; at < items.length; ) {
      const slice = items.slice(at, at + this.size);
      const started = this.clock();
      await work(slice);
      this.adapt(slice.length, this.clock() - started);
      at += slice.length;
      await yieldToEventLoop();
    }
  }

  private adapt(items: number, ms: number): void {
    const fit = ms > 0 ? Math.floor((items * this.sliceMs) / ms) : this.maxItems;
    this.size = Math.max(Math.min(MIN_ITEMS, this.maxItems), Math.min(this.maxItems, fit, this.size * MAX_GROWTH));
  }
}
