/**
 * oidc-provider's storage adapter on our store: one table (oidc_payloads) for every model kind.
 * These rows are the library's working state (sessions, codes, tokens), not domain state, so
 * they are written without events. Clients are not stored here: `Client` lookups read the OIDC
 * applications and machine-user secrets (see clients.ts).
 *
 * Bearer values are not stored: for the kinds in TOKEN_KINDS the library's id *is* the token or
 * code a client presents (it calls `find(value)`), so the row's key is its SHA-256 (as for PATs)
 * and the payload is stored without `jti` (the library puts the id there too); `find` puts it
 * back from the value it was asked for. A row read from the table therefore cannot be replayed.
 * Other kinds keep their ids: sessions and device codes are also found by uid / user code,
 * where there is no value to restore `jti` from.
 *
 * Each write is one statement (`store.statement`: on PostgreSQL without BEGIN … COMMIT), and
 * each is whole on its own: the library never needs two of them to commit together.
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { AuthCache } from '../auth/auth-cache.js';
import { hashToken } from '../auth/tokens.js';
import { hasNul } from '../domain/unstorable-text.js';
import type { OidcPayloadRow } from '../store/repositories/oidc.js';
import type { Store } from '../store/store.js';
import { nulPayloadError } from './nul-guard.js';

export type ClientLookup = (clientId: string) => Promise<AdapterPayload | undefined>;

/** Models whose id is a secret a client presents (found only by that value). */
export const TOKEN_KINDS: ReadonlySet<string> = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'ClientCredentials',
  'BackchannelAuthenticationRequest',
  'PushedAuthorizationRequest',
  'RegistrationAccessToken',
  'InitialAccessToken',
]);

/**
 * The kinds oidc-provider looks a presented token up in all at once (introspection and revocation:
 * `findToken` asks the three models in one Promise.all). Their lookups of one key that start in the
 * same turn share one query (`sharedTokenLookup`) instead of three.
 */
const LOOKED_UP_TOGETHER = ['AccessToken', 'ClientCredentials', 'RefreshToken'] as const;
const lookedUpTogether: ReadonlySet<string> = new Set(LOOKED_UP_TOGETHER);

/** The stored key of a model's id: its hash for token kinds. */
export function storedKey(kind: string, id: string): string {
  return TOKEN_KINDS.has(kind) ? hashToken(id) : id;
}

function withoutJti(payload: AdapterPayload): AdapterPayload {
  const { jti: _jti, ...rest } = payload;
  return rest;
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
}

function toPayload(row: OidcPayloadRow | undefined, id?: string): AdapterPayload | undefined {
  if (!row) return undefined;
  let payload = row.payload as AdapterPayload;
  if (id !== undefined && TOKEN_KINDS.has(row.kind)) payload = { ...payload, jti: id };
  return row.consumedAt != null ? { ...payload, consumed: row.consumedAt } : payload;
}

export function storeAdapter(store: Store, findClient: ClientLookup) {
  // Writes of the kinds looked up together, by this process's adapter (the only code writing them,
  // besides a user's removal, which writes `users` and so bumps the auth generation too).
  let tokenWrites = 0;
  const noteTokenWrite = (kind: string) => {
    if (lookedUpTogether.has(kind)) tokenWrites++;
  };
  const tokenRows = new AuthCache<OidcPayloadRow[]>({ authGeneration: () => store.authGeneration() + tokenWrites });
  // Lookups in flight by the token presented: the lookups of one token started meanwhile share its
  // query (and its hash). The token kinds all store under the token's hash.
  const inFlight = new Map<string, Promise<OidcPayloadRow[]>>();
  function sharedTokenLookup(token: string): Promise<OidcPayloadRow[]> {
    let rows = inFlight.get(token);
    if (!rows) {
      const key = hashToken(token);
      rows = tokenRows.get(key, () => lookUpTokenRows(key)).finally(() => inFlight.delete(token));
      inFlight.set(token, rows);
    }
    return rows;
  }
  /**
   * An access token's row is kept like authentication's results (auth/auth-cache.ts): a resource
   * server introspects one token on every request it serves. Revoking it (destroy, its grant's
   * revocation) or any other write of these kinds in this process is seen at once, another
   * process's within the cache's TTL; never past its expiry. Refresh tokens are read afresh every
   * time: their `consumed` mark is how a replayed one is caught, in every process at once.
   */
  async function lookUpTokenRows(key: string): Promise<{ value: OidcPayloadRow[]; notAfter?: number } | { uncached: OidcPayloadRow[] }> {
    const rows = await store.read.oidc.payloads.findOfKinds(LOOKED_UP_TOGETHER, key, new Date());
    if (!rows.length || rows.some((row) => row.kind === 'RefreshToken')) return { uncached: rows };
    const expiries = rows.map((row) => row.expiresAt?.getTime() ?? Infinity);
    // Shared by every request presenting the token: frozen, so that a change would fail loudly
    // rather than reach the next request (oidc-provider copies a payload's fields onto its model).
    for (const row of rows) deepFreeze(row.payload);
    return { value: rows, notAfter: Math.min(...expiries) };
  }

  return class StoreAdapter implements Adapter {
    constructor(private readonly kind: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      if (hasNul(id) || JSON.stringify(payload).includes('\\u0000')) throw nulPayloadError();
      await store.statement((repositories) =>
        repositories.oidc.payloads.upsert({
          kind: this.kind,
          id: storedKey(this.kind, id),
          payload: (TOKEN_KINDS.has(this.kind) ? withoutJti(payload) : payload) as Record<string, unknown>,
          grantId: payload.grantId ?? null,
          uid: payload.uid ?? null,
          userCode: payload.userCode ?? null,
          consumedAt: null,
          expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
        }),
      );
      noteTokenWrite(this.kind);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (hasNul(id)) return undefined; // no key holds one (nul-guard.ts)
      if (this.kind === 'Client') return findClient(id);
      if (lookedUpTogether.has(this.kind)) {
        const rows = await sharedTokenLookup(id);
        // toPayload's object is new; what it holds may be the cached row's, shared and frozen.
        return toPayload(
          rows.find((r) => r.kind === this.kind),
          id,
        );
      }
      return toPayload(await store.read.oidc.payloads.find(this.kind, storedKey(this.kind, id), new Date()), id);
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      if (hasNul(uid)) return undefined;
      return toPayload(await store.read.oidc.payloads.findByUid(this.kind, uid, new Date()));
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      if (hasNul(userCode)) return undefined;
      return toPayload(await store.read.oidc.payloads.findByUserCode(this.kind, userCode, new Date()));
    }

    async consume(id: string): Promise<void> {
      if (hasNul(id)) return;
      await store.statement((repositories) => repositories.oidc.payloads.consume(this.kind, storedKey(this.kind, id), Math.floor(Date.now() / 1000)));
      noteTokenWrite(this.kind);
    }

    async destroy(id: string): Promise<void> {
      if (hasNul(id)) return;
      await store.statement((repositories) => repositories.oidc.payloads.destroy(this.kind, storedKey(this.kind, id)));
      noteTokenWrite(this.kind);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      if (hasNul(grantId)) return;
      await store.statement((repositories) => repositories.oidc.payloads.revokeByGrantId(this.kind, grantId));
      noteTokenWrite(this.kind);
    }
  };
}

/**
 * Rows an earlier version stored under the token itself (their payload still holds `jti`) are
 * moved to the hashed key, without `jti`, so tokens issued before an upgrade keep working and
 * none stays readable in the table. Run once at start (server.ts); idempotent.
 */
export async function hashLegacyTokenKeys(store: Store): Promise<number> {
  return store.transaction(async (tx) => {
    const rows = await tx.oidc.payloads.withJti([...TOKEN_KINDS]);
    let moved = 0;
    for (const row of rows) {
      const jti = (row.payload as { jti?: unknown }).jti;
      if (typeof jti !== 'string' || jti !== row.id) continue;
      await tx.oidc.payloads.destroy(row.kind, row.id);
      await tx.oidc.payloads.upsert({ ...row, id: storedKey(row.kind, row.id), payload: withoutJti(row.payload as AdapterPayload) as Record<string, unknown> });
      moved++;
    }
    return moved;
  });
}

/** Deletes expired rows now and then (they are already invisible to `find`). */
export function startPayloadSweeper(store: Store, everyMs = 10 * 60 * 1000): () => void {
  const timer = setInterval(() => {
    store.transaction((tx) => tx.oidc.payloads.deleteExpired(new Date())).catch(() => undefined);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
