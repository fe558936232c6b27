/**
 * What authentication derived from the store (a token's owner, a caller's permissions in one
 * organisation), kept in process memory so that a request with a known token costs no query.
 *
 * Staleness is bounded two ways:
 * - in this process, not at all: every committed write to a table authentication reads bumps the
 *   store's `authGeneration()` (store/auth-writes.ts), and an entry computed under an older
 *   generation is never served;
 * - across processes on one database (replicas, a second process on one SQLite file), by the
 *   TTL: another process's revocation takes effect here within `AUTH_CACHE_TTL_MS`.
 *
 * An entry is also never served past its own `notAfter` (a token's expiry).
 */
import { LruMap } from '../runtime/lru-map.js';
import type { Store } from '../store/store.js';

/** How long another process's change can go unseen here (README, ARCHITECTURE.md). */
export const AUTH_CACHE_TTL_MS = 1000;
/** Bounds memory: least recently used entries go first. */
export const AUTH_CACHE_MAX_ENTRIES = 10_000;

interface Entry<V> {
  value: V;
  generation: number;
  validUntil: number;
}

export interface AuthCacheOptions {
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

export class AuthCache<V> {
  private readonly entries: LruMap<string, Entry<V>>;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly store: Pick<Store, 'authGeneration'>,
    options: AuthCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? AUTH_CACHE_TTL_MS;
    this.entries = new LruMap(options.maxEntries ?? AUTH_CACHE_MAX_ENTRIES);
    this.now = options.now ?? Date.now;
  }

  /**
   * The cached value, or `load()`'s. `load` returns the value and the latest instant it may be
   * served (undefined: only the TTL bounds it), or undefined for "do not cache" (its result is
   * then returned uncached). The generation is read before `load` runs, so a write committed
   * while it ran leaves an entry that is never served.
   */
  async get(key: string, load: () => Promise<{ value: V; notAfter?: number } | { uncached: V }>): Promise<V> {
    const now = this.now();
    const generation = this.store.authGeneration();
    const hit = this.entries.get(key);
    if (hit) {
      // The `get` made it the most recently used (lru-map.ts).
      if (hit.generation === generation && now < hit.validUntil) return hit.value;
      this.entries.delete(key);
    }
    const loaded = await load();
    if ('uncached' in loaded) return loaded.uncached;
    const validUntil = Math.min(now + this.ttlMs, loaded.notAfter ?? Infinity);
    if (validUntil > now && this.store.authGeneration() === generation) {
      this.entries.set(key, { value: loaded.value, generation, validUntil });
    }
    return loaded.value;
  }

  get size(): number {
    return this.entries.size;
  }
}
