/**
 * How the trail is paged, as ZITADEL's v1 API pages it: a `sequence` cursor (events past that
 * sequence of their aggregate in the order read, so the last one of a page asks for the next) and a
 * `limit` whose default is its maximum, 1000 (SystemDefaults.V1QueryLimit; ListEvents keeps its
 * documented default of 100).
 */
import { invalidArgument } from '../errors.js';

export const MAX_TRAIL_LIMIT = 1000;
const MAX_UINT64 = 2n ** 64n - 1n;

/** ZITADEL's uint64 sequence (a JSON string or number) → the cursor; 0 or none means from the start. */
export function sequenceCursor(value: string | number | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const text = String(value);
  if (!/^[0-9]{1,20}$/.test(text) || BigInt(text) > MAX_UINT64) throw invalidArgument('CHANGE-s3qC1', 'invalid sequence: must be an unsigned 64-bit integer');
  // No aggregate has 2^53 events: a larger cursor is past all of them.
  const cursor = Number(text) > Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : Number(text);
  return cursor === 0 ? undefined : cursor;
}

/** ZITADEL's V1QueryLimit: 0 or none → the maximum; beyond it → 400 `QUERY-4M0fs`. */
export function trailLimit(value: string | number | undefined): number {
  const text = value === undefined || value === '' ? '0' : String(value);
  if (!/^[0-9]{1,10}$/.test(text)) throw invalidArgument('QUERY-4M0fs', 'invalid limit: must be an unsigned integer');
  const limit = Number(text);
  if (limit > MAX_TRAIL_LIMIT) throw invalidArgument('QUERY-4M0fs', `invalid limit: at most ${MAX_TRAIL_LIMIT}`);
  return limit || MAX_TRAIL_LIMIT;
}
