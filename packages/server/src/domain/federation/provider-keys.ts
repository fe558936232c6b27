/**
 * The signing keys of JWT identity providers, read from their `keysEndpoint` (a JWKS) and kept
 * per process: served from memory for KEYS_FRESH_MS, read again at once when a token names a key
 * id the cached set lacks (the provider rotated), but not more often than REREAD_COOLDOWN_MS per
 * endpoint, so tokens with made-up key ids cannot turn the login page into a request flood
 * against the provider. Concurrent reads of one endpoint share one request.
 */
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { fetchLimited, OutboundError, type OutboundLimits } from '../../outbound/limited-fetch.js';
import { LruMap } from '../../runtime/lru-map.js';

export const KEYS_LIMITS: OutboundLimits = { timeoutMs: 5_000, maxBytes: 256 * 1024 };
export const KEYS_FRESH_MS = 5 * 60_000;
export const REREAD_COOLDOWN_MS = 10_000;
/** Endpoints remembered at once; the least recently read goes first. */
const MAX_ENDPOINTS = 200;

interface Cached {
  keys: JWTVerifyGetKey;
  kids: Set<string | undefined>;
  readAt: number;
}

export class ProviderKeys {
  private readonly cache = new LruMap<string, Cached>(MAX_ENDPOINTS);
  private readonly inFlight = new Map<string, Promise<Cached>>();

  constructor(
    private readonly limits: OutboundLimits = KEYS_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The key set to verify a token whose header names `kid`, read or re-read as described above. */
  async forToken(endpoint: string, kid: string | undefined): Promise<JWTVerifyGetKey> {
    let cached = this.cache.get(endpoint);
    const age = cached ? this.now() - cached.readAt : Infinity;
    const unknownKid = cached && kid !== undefined && !cached.kids.has(kid);
    if (!cached || age > KEYS_FRESH_MS || (unknownKid && age > REREAD_COOLDOWN_MS)) cached = await this.read(endpoint);
    return cached.keys;
  }

  private read(endpoint: string): Promise<Cached> {
    const running = this.inFlight.get(endpoint);
    if (running) return running;
    const reading = this.fetchSet(endpoint).finally(() => this.inFlight.delete(endpoint));
    this.inFlight.set(endpoint, reading);
    return reading;
  }

  private async fetchSet(endpoint: string): Promise<Cached> {
    const res = await fetchLimited(endpoint, this.limits, { headers: { accept: 'application/json' } });
    if (res.status !== 200) throw new OutboundError(`${endpoint} answered ${res.status} instead of the provider's keys`);
    let set: JSONWebKeySet;
    try {
      set = JSON.parse(res.body.toString('utf8')) as JSONWebKeySet;
      if (!Array.isArray(set?.keys)) throw new Error('no "keys" array');
    } catch (error) {
      throw new OutboundError(`${endpoint} did not answer with a JSON Web Key Set (${(error as Error).message})`);
    }
    let keys: JWTVerifyGetKey;
    try {
      keys = createLocalJWKSet(set);
    } catch (error) {
      throw new OutboundError(`${endpoint} answered with an unusable key set (${(error as Error).message})`);
    }
    const entry: Cached = { keys, kids: new Set(set.keys.map((k) => k.kid)), readAt: this.now() };
    this.cache.set(endpoint, entry);
    return entry;
  }
}
