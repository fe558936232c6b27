/**
 * A user's metadata (ZITADEL's v1 management SetUserMetadata, BulkSetUserMetadata,
 * GetUserMetadata, ListUserMetadata, RemoveUserMetadata, BulkRemoveUserMetadata): keys of up to
 * 200 characters with values of 1–500,000 bytes, given and returned as standard base64. Every
 * change is an event on the user (`user.metadata.set`, `user.metadata.removed`); the values are
 * not copied into events (they may be large), only the keys.
 */

import type { UserMetadataRow } from '../../store/repositories/user-metadata.js';
import type { Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { changedDetails, type ObjectDetails, viewDetails } from '../details.js';
import { invalidArgument, notFound } from '../errors.js';
import { type ListDetails, type ListQueryInput, listDetails, type TextQueryMethod, textMatch, toPage } from '../list.js';
import { isUnstorableText } from '../unstorable-text.js';
import { USER_AGGREGATE } from './aggregate.js';
import { userInContextOrg, userToChange } from './guard.js';

export const METADATA_VALUE_MAX_BYTES = 500_000;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export interface MetadataView {
  details: ObjectDetails;
  key: string;
  value: string;
}

const view = (row: UserMetadataRow): MetadataView => ({ details: viewDetails(row, row.orgId), key: row.key, value: row.value });

/** Checks a key and a base64 value (`field` names them in the error, e.g. `metadata[2].value`). */
function checkEntry(key: string, value: string, field: string): string {
  if (!key || key.length > 200 || isUnstorableText(key)) throw invalidArgument('META-k3y0', `invalid ${field}key: must be 1 to 200 characters`);
  // URL-safe and unpadded base64 too (protojson accepts both alphabets).
  const unpadded = value.replace(/-/g, '+').replace(/_/g, '/');
  const normalised = unpadded.length % 4 === 0 ? unpadded : unpadded + '='.repeat(4 - (unpadded.length % 4));
  if (!BASE64.test(normalised)) throw invalidArgument('META-v4l0', `invalid ${field}value: must be base64`);
  const bytes = Buffer.from(normalised, 'base64').length;
  if (bytes < 1 || bytes > METADATA_VALUE_MAX_BYTES) throw invalidArgument('META-v4l1', `invalid ${field}value: must be 1 to ${METADATA_VALUE_MAX_BYTES} bytes, got ${bytes}`);
  // Stored in the standard alphabet, as ZITADEL answers bytes.
  return Buffer.from(normalised, 'base64').toString('base64');
}

async function setAll(tx: Repositories, ctx: RequestContext, userId: string, entries: { key: string; value: string }[]): Promise<{ details: ObjectDetails }> {
  // Metadata reaches tokens (`urn:zitadel:iam:user:metadata`): changing it needs authority over the user (guard.ts).
  const user = await userToChange(tx, ctx, userId, 'META-ncnoQ');
  let event;
  for (const { key, value } of entries) {
    event = await tx.events.append({ aggregateType: USER_AGGREGATE, aggregateId: user.id, type: 'user.metadata.set', payload: { key }, creator: ctx.caller.userId, resourceOwner: user.orgId });
    const current = await tx.userMetadata.get(user.id, key);
    await tx.userMetadata.upsert({ userId: user.id, key, value, orgId: user.orgId, sequence: event.sequence, createdAt: current?.createdAt ?? event.createdAt, changedAt: event.createdAt });
  }
  await tx.users.touch(user.id, event!.sequence, event!.createdAt);
  return { details: changedDetails(event!) };
}

export async function setUserMetadata(store: Store, ctx: RequestContext, userId: string, key: string, input: { value: string }): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'user.write');
  const value = checkEntry(key, input.value, '');
  return store.transaction((tx) => setAll(tx, ctx, userId, [{ key, value }]), [[USER_AGGREGATE, userId]]);
}

export async function bulkSetUserMetadata(store: Store, ctx: RequestContext, userId: string, input: { metadata: { key: string; value: string }[] }): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'user.write');
  if (input.metadata.length === 0) throw invalidArgument('META-2m0fS', 'invalid metadata: give at least one entry');
  const entries = input.metadata.map((m, i) => ({ key: m.key, value: checkEntry(m.key, m.value, `metadata[${i}].`) }));
  return store.transaction((tx) => setAll(tx, ctx, userId, entries), [[USER_AGGREGATE, userId]]);
}

export async function getUserMetadata(store: Store, ctx: RequestContext, userId: string, key: string): Promise<{ metadata: MetadataView }> {
  requirePermission(ctx, 'user.read');
  const user = await userInContextOrg(store.read, ctx, userId, 'META-ncnoQ');
  const row = await store.read.userMetadata.get(user.id, key);
  if (!row) throw notFound('META-Ahv9o', 'Metadata not found');
  return { metadata: view(row) };
}

export interface MetadataQuery {
  keyQuery?: { key: string; method?: TextQueryMethod };
}

export async function listUserMetadata(
  store: Store,
  ctx: RequestContext,
  userId: string,
  input: { query?: ListQueryInput; queries?: MetadataQuery[] },
): Promise<{ details: ListDetails; result: MetadataView[] }> {
  requirePermission(ctx, 'user.read');
  const user = await userInContextOrg(store.read, ctx, userId, 'META-ncnoQ');
  const keyQueries = (input.queries ?? []).map((q, i) => {
    if (!q.keyQuery) throw invalidArgument('API-Qu3ry', `invalid queries[${i}]: keyQuery must be set`);
    return q.keyQuery;
  });
  if (keyQueries.length > 1) throw invalidArgument('API-Qu3ry', 'invalid queries: at most one keyQuery');
  const at = new Date();
  const { total, rows } = await store.read.userMetadata.list(user.id, { key: keyQueries[0] ? textMatch(keyQueries[0].key, keyQueries[0].method) : undefined }, toPage(input.query));
  return { details: listDetails(total, at), result: rows.map(view) };
}

async function removeKeys(tx: Repositories, ctx: RequestContext, userId: string, keys: string[]): Promise<{ details: ObjectDetails }> {
  // Metadata reaches tokens (`urn:zitadel:iam:user:metadata`): changing it needs authority over the user (guard.ts).
  const user = await userToChange(tx, ctx, userId, 'META-ncnoQ');
  let event;
  for (const key of keys) {
    if (!(await tx.userMetadata.get(user.id, key))) throw notFound('META-ubV6p', `Metadata not found: ${key}`);
    event = await tx.events.append({ aggregateType: USER_AGGREGATE, aggregateId: user.id, type: 'user.metadata.removed', payload: { key }, creator: ctx.caller.userId, resourceOwner: user.orgId });
  }
  await tx.userMetadata.remove(user.id, keys);
  await tx.users.touch(user.id, event!.sequence, event!.createdAt);
  return { details: changedDetails(event!) };
}

export async function removeUserMetadata(store: Store, ctx: RequestContext, userId: string, key: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'user.write');
  return store.transaction((tx) => removeKeys(tx, ctx, userId, [key]), [[USER_AGGREGATE, userId]]);
}

export async function bulkRemoveUserMetadata(store: Store, ctx: RequestContext, userId: string, input: { keys: string[] }): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'user.write');
  const keys = [...new Set(input.keys)];
  if (keys.length === 0) throw invalidArgument('META-9mm2d', 'invalid keys: give at least one key');
  return store.transaction((tx) => removeKeys(tx, ctx, userId, keys), [[USER_AGGREGATE, userId]]);
}

/** ZITADEL's `urn:zitadel:iam:user:metadata` claim: every key with its base64 value. */
export async function metadataClaim(read: Repositories, userId: string): Promise<Record<string, string>> {
  return Object.fromEntries((await read.userMetadata.all(userId)).map((row) => [row.key, row.value]));
}
