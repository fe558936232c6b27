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
import { GenerationCache, type GenerationCacheOptions } from '../runtime/generation-cache.js';
import type { Store } from '../store/store.js';

/** How long another process's change can go unseen here (README, ARCHITECTURE.md). */
export const AUTH_CACHE_TTL_MS = 1000;
/** Bounds memory: least recently used entries go first. */
export const AUTH_CACHE_MAX_ENTRIES = 10_000;

export type AuthCacheOptions = Partial<GenerationCacheOptions>;

/** A generation cache (runtime/generation-cache.ts) with authentication's TTL and bound. */
export class AuthCache<V> extends GenerationCache<V> {
  constructor(store: Pick<Store, 'authGeneration'>, options: AuthCacheOptions = {}) {
    super(store, { ttlMs: options.ttlMs ?? AUTH_CACHE_TTL_MS, maxEntries: options.maxEntries ?? AUTH_CACHE_MAX_ENTRIES, now: options.now });
  }
}
