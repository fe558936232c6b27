import type { AggregateLock } from './store-types.js';

/** Lock keys in one order (sorted, without duplicates), so two transactions never wait on each other in a cycle. */
export function lockKeys(locks: readonly AggregateLock[] | undefined): string[] {
  return [...new Set((locks ?? []).map(([type, id]) => `${type}:${id}`))].sort();
}
