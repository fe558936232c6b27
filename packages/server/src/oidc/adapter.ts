/**
 * oidc-provider's storage adapter on our store: one table (oidc_payloads) for every model kind.
 * These rows are the library's working state (sessions, codes, tokens), not domain state, so
 * they are written without events. Clients are not stored here: `Client` lookups read the OIDC
 * applications and machine-user secrets (see clients.ts).
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Store } from '../store/store.js';
import type { OidcPayloadRow } from '../store/repositories/oidc.js';

export type ClientLookup = (clientId: string) => Promise<AdapterPayload | undefined>;

function toPayload(row: OidcPayloadRow | undefined): AdapterPayload | undefined {
  if (!row) return undefined;
  const payload = row.payload as AdapterPayload;
  return row.consumedAt != null ? { ...payload, consumed: row.consumedAt } : payload;
}

export function storeAdapter(store: Store, findClient: ClientLookup) {
  return class StoreAdapter implements Adapter {
    constructor(private readonly kind: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      await store.transaction((tx) =>
        tx.oidc.payloads.upsert({
          kind: this.kind,
          id,
          payload: payload as Record<string, unknown>,
          grantId: payload.grantId ?? null,
          uid: payload.uid ?? null,
          userCode: payload.userCode ?? null,
          consumedAt: null,
          expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
        }),
      );
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.kind === 'Client') return findClient(id);
      return toPayload(await store.read.oidc.payloads.find(this.kind, id, new Date()));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return toPayload(await store.read.oidc.payloads.findByUid(this.kind, uid, new Date()));
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return toPayload(await store.read.oidc.payloads.findByUserCode(this.kind, userCode, new Date()));
    }

    async consume(id: string): Promise<void> {
      await store.transaction((tx) => tx.oidc.payloads.consume(this.kind, id, Math.floor(Date.now() / 1000)));
    }

    async destroy(id: string): Promise<void> {
      await store.transaction((tx) => tx.oidc.payloads.destroy(this.kind, id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await store.transaction((tx) => tx.oidc.payloads.revokeByGrantId(this.kind, grantId));
    }
  };
}

/** Deletes expired rows now and then (they are already invisible to `find`). */
export function startPayloadSweeper(store: Store, everyMs = 10 * 60 * 1000): () => void {
  const timer = setInterval(() => {
    store.transaction((tx) => tx.oidc.payloads.deleteExpired(new Date())).catch(() => undefined);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
