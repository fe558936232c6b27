/**
 * Keys of machine users (ZITADEL's AddMachineKey, ListMachineKeys, GetMachineKeyByIDs,
 * RemoveMachineKey), for the JWT-profile grant (RFC 7523 §2.1: the machine user signs a JWT with
 * its key and exchanges it for a token).
 *
 * The key pair is made here (RSA 2048, domain/key-pairs.ts); the private key is returned once,
 * inside `keyDetails` (base64 of ZITADEL's key file
 * `{"type":"serviceaccount","keyId","key","expirationDate","userId"}`), and never stored: only the
 * public key is kept. A caller may bring its own public key instead (`publicKey`, base64 of a PEM
 * `PUBLIC KEY`), and then gets no key file. Keys are events on the user's aggregate
 * (`user.machine.key.added` / `.removed`); RemoveUser removes them with the user.
 *
 * A key is a credential: adding and removing one load the user through
 * `machineUserToChange` / `userToChange` (guard.ts), so the caller must be allowed
 * to grant every membership the machine user holds.
 */

import type { MachineKeyRow } from '../../store/repositories/machine-keys.js';
import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { addedDetails, changedDetails, type ObjectDetails, viewDetails } from '../details.js';
import { invalidArgument, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { type KeyType, keyExpiration, newKeyPair, rsaPublicKeyPem } from '../key-pairs.js';
import { type ListDetails, type ListQueryInput, listDetails, toPage } from '../list.js';
import { USER_AGGREGATE } from './aggregate.js';
import { machineUserToChange, userInContextOrg, userToChange } from './guard.js';

export interface MachineKeyView {
  id: string;
  details: ObjectDetails;
  type: KeyType;
  expirationDate: string;
}

export interface AddedMachineKey {
  keyId: string;
  /** Absent when the caller brought its own public key. */
  keyDetails?: string;
  details: ObjectDetails;
}

function toView(row: MachineKeyRow): MachineKeyView {
  return { id: row.id, details: viewDetails(row, row.orgId), type: row.type as KeyType, expirationDate: row.expiresAt.toISOString() };
}

export async function addMachineKey(store: Store, ctx: RequestContext, userId: string, input: { type: KeyType; expirationDate?: string; publicKey?: string }): Promise<AddedMachineKey> {
  requirePermission(ctx, 'user.write');
  if (input.type !== 'KEY_TYPE_JSON') throw invalidArgument('USER-k3yTy', 'invalid type: the key type must be KEY_TYPE_JSON');
  const expiresAt = keyExpiration(input.expirationDate);
  // Made (or read) before the transaction: generating takes tens of milliseconds, off the event loop, so the lock is short.
  const pair = input.publicKey === undefined ? await newKeyPair() : { publicKey: rsaPublicKeyPem(input.publicKey), privateKey: undefined };
  const keyId = newId();
  return store.transaction(
    async (tx) => {
      const user = await machineUserToChange(tx, ctx, userId, 'COMMAND-bnipwm1', 'keys');
      const event = await tx.events.append({
        aggregateType: USER_AGGREGATE,
        aggregateId: user.id,
        type: 'user.machine.key.added',
        payload: { keyId, type: input.type, expirationDate: expiresAt.toISOString(), publicKey: pair.publicKey },
        creator: ctx.caller.userId,
        resourceOwner: user.orgId,
      });
      await tx.machineKeys.insert({
        id: keyId,
        userId: user.id,
        orgId: user.orgId,
        type: input.type,
        expiresAt,
        publicKey: pair.publicKey,
        sequence: event.sequence,
        createdAt: event.createdAt,
        changedAt: event.createdAt,
      });
      await tx.users.touch(user.id, event.sequence, event.createdAt);
      const details = addedDetails(event);
      if (pair.privateKey === undefined) return { keyId, details };
      // ZITADEL's MachineKeyMarshalJSON: type, keyId, key, expirationDate, userId.
      const keyFile = { type: 'serviceaccount', keyId, key: pair.privateKey, expirationDate: expiresAt.toISOString(), userId: user.id };
      return { keyId, keyDetails: Buffer.from(JSON.stringify(keyFile)).toString('base64'), details };
    },
    [[USER_AGGREGATE, userId]],
  );
}

/** Every key of the user (expired ones included: they show their expirationDate); a human user has none. */
export async function listMachineKeys(store: Store, ctx: RequestContext, userId: string, input: { query?: ListQueryInput }): Promise<{ details: ListDetails; result: MachineKeyView[] }> {
  requirePermission(ctx, 'user.read');
  const user = await userInContextOrg(store.read, ctx, userId, 'QUERY-Dbmdg');
  const at = new Date();
  const { total, rows } = await store.read.machineKeys.listByUser(user.id, toPage(input.query));
  return { details: listDetails(total, at), result: rows.map(toView) };
}

export async function getMachineKey(store: Store, ctx: RequestContext, userId: string, keyId: string): Promise<{ key: MachineKeyView }> {
  requirePermission(ctx, 'user.read');
  const user = await userInContextOrg(store.read, ctx, userId, 'QUERY-Dbmdg');
  const row = await store.read.machineKeys.get(user.id, keyId);
  if (!row) throw notFound('QUERY-Dgr3g', 'Errors.AuthNKey.NotFound: the key could not be found');
  return { key: toView(row) };
}

/** Removes the key: a JWT signed with it is refused from the next request on (keys are read per request). */
export async function removeMachineKey(store: Store, ctx: RequestContext, userId: string, keyId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'user.write');
  return store.transaction(
    async (tx) => {
      const user = await userToChange(tx, ctx, userId, 'COMMAND-bnipwm1');
      const row = await tx.machineKeys.get(user.id, keyId);
      if (!row) throw notFound('COMMAND-4m77G', 'Errors.User.Machine.Key.NotFound: the key could not be found');
      const event = await tx.events.append({
        aggregateType: USER_AGGREGATE,
        aggregateId: user.id,
        type: 'user.machine.key.removed',
        payload: { keyId },
        creator: ctx.caller.userId,
        resourceOwner: user.orgId,
      });
      await tx.machineKeys.remove(row.id);
      await tx.users.touch(user.id, event.sequence, event.createdAt);
      return { details: changedDetails(event) };
    },
    [[USER_AGGREGATE, userId]],
  );
}
