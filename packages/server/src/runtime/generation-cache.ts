/**
 * Values derived from tables whose every committed write in this process bumps a generation
 * (the store's `authGeneration()`, store/auth-writes.ts), kept in process memory: an entry computed
 * under an older generation is never served, and none is served past the TTL (what another
 * process changed) or its own `notAfter`. The authentication cache (auth/auth-cache.ts) and the
 * store's policy reads (store/policy-reads.ts) are this, with their own bounds.
 */
import { LruMap } from './lru-map.js';

interface Entry<V> {
  value: V;
  generation: number;
  validUntil: number;
}

export interface GenerationCacheOptions {
  ttlMs: number;
  maxEntries: number;
  now?: () => number;
}

export class GenerationCache<V> {
  private readonly entries: LruMap<string, Entry<V>>;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly source: { authGeneration(): number },
    options: GenerationCacheOptions,
  ) {
    this.ttlMs = options.ttlMs;
    this.entries = new LruMap(options.maxEntries);
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
    const generation = this.source.authGeneration();
    const hit = this.entries.get(key);
    if (hit) {
      // The `get` made it the most recently used (lru-map.ts).
      if (hit.generation === generation && now < hit.validUntil) return hit.value;
      this.entries.delete(key);
    }
    const loaded = await load();
    if ('uncached' in loaded) return loaded.uncached;
    const validUntil = Math.min(now + this.ttlMs, loaded.notAfter ?? Infinity);
    if (validUntil > now && this.source.authGeneration() === generation) {
      this.entries.set(key, { value: loaded.value, generation, validUntil });
    }
    return loaded.value;
  }

  get size(): number {
    return this.entries.size;
  }
}
