/**
 * The store's reads of the policy that applies (`policies.firstOf`: an organisation's own, else the
 * instance's), kept like authentication's results (runtime/generation-cache.ts). Policies are among
 * authentication's tables (auth-writes.ts), so a committed change in this process is seen by the
 * next read; another process's within POLICY_READS_TTL_MS, the authentication cache's second.
 *
 * Why: a sign-in reads the effective login, lockout, label, privacy and domain policies about eight
 * times across its steps, and on PostgreSQL each read is a round trip (~56–110 µs of the server's
 * CPU; BENCHMARKS.md, "A sign-in's round trips on PostgreSQL"). Only reads outside a transaction
 * (`store.read`) are kept: a transaction reads its own writes. Callers get a copy of the row.
 */
import { GenerationCache } from '../runtime/generation-cache.js';
import type { PolicyRow } from './repositories/policies.js';
import type { Store } from './store-types.js';

/** As the authentication cache's TTL (auth/auth-cache.ts). */
export const POLICY_READS_TTL_MS = 1000;
/** Owner pairs × kinds kept at most. */
const MAX_ENTRIES = 10_000;

/** `store` with its `read.policies.firstOf` kept as above; everything else as it was. */
export function withKeptPolicyReads(store: Store): Store {
  const policies = store.read.policies;
  const kept = new GenerationCache<PolicyRow | undefined>(store, { ttlMs: POLICY_READS_TTL_MS, maxEntries: MAX_ENTRIES });
  const firstOf = async (first: string, second: string, kind: string) => {
    const row = await kept.get(`${first}\u0000${second}\u0000${kind}`, async () => ({ value: await policies.firstOf(first, second, kind) }));
    return row && structuredClone(row);
  };
  return { ...store, read: { ...store.read, policies: { ...policies, firstOf } } };
}
