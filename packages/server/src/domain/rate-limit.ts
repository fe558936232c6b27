import { LruMap } from '../runtime/lru-map.js';

/**
 * A per-key budget of actions in a sliding window, in this process (several processes each keep
 * their own). Used where an action reaches outside the service on a caller's word, such as mailing
 * a text's preview to any address (domain/texts/preview.ts), and to count an HTTP/2 session's
 * cancelled streams (http2-sessions.ts, rapid reset).
 */
export class SlidingWindowLimit {
  private readonly taken: LruMap<string, number[]>;

  /** `maxKeys`: the keys kept at most; the least recently used go first (a bounded map whatever callers do). */
  constructor(
    readonly max: number,
    readonly windowMs: number,
    maxKeys = 10_000,
  ) {
    this.taken = new LruMap(maxKeys);
  }

  /** Takes one for `key`: undefined when it was free, else the seconds until one is. */
  take(key: string, now = Date.now()): number | undefined {
    const times = (this.taken.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (times.length >= this.max) {
      this.taken.set(key, times);
      return Math.max(1, Math.ceil((times[0]! + this.windowMs - now) / 1000));
    }
    times.push(now);
    this.taken.set(key, times);
    return undefined;
  }
}
