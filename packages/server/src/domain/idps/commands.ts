/**
 * Writes of identity-provider configurations (reference §3, org_idp_config.go).
 *
 * Events: ZITADEL appends two on creation (`<agg>.idp.config.added` with name/styling/
 * auto-register, then `<agg>.idp.jwt.config.added`). Here creation is ONE event,
 * `<agg>.idp.config.added`, whose payload carries the JWT settings too: the audit trail is as
 * complete, and `details.sequence` is still the owning aggregate's (organisation's or
 * instance's) sequence after the write. Later changes: `<agg>.idp.config.changed`,
 * `<agg>.idp.jwt.config.changed` (payloads hold only what changed), `.deactivated`,
 * `.reactivated`, `.removed`.
 */
import { cascadeIdpRemoval } from '../federation/links.js';
import { requirePermission, type RequestContext } from '../context.js';
import { addedDetails, changedDetails, type ObjectDetails } from '../details.js';
import { alreadyExists, failedPrecondition } from '../errors.js';
import { newId } from '../ids.js';
import { UniqueViolation, type AggregateLock, type Repositories, type Store } from '../../store/store.js';
import type { IdpChange, IdpRow } from '../../store/repositories/idps.js';
import { idpNotFound, nameKeyOf, stylingTypeOf, type IdpScope, type JwtConfig, type StylingType } from './idp.js';

export interface AddJwtIdpInput extends JwtConfig {
  name: string;
  stylingType?: StylingType | 0 | 1;
  autoRegister?: boolean;
}

export interface UpdateIdpInput {
  name: string;
  stylingType?: StylingType | 0 | 1;
  autoRegister?: boolean;
}

/** Commands on one identity provider run one after the other (Store.transaction's locks). */
const IDP_LOCK = 'idp';

const nameTaken = () => alreadyExists('V3-DKcYh', 'IDP Configuration with this name already exists');

/**
 * Runs a write; a concurrent writer that took the same name first (PostgreSQL: the unique
 * index fires at insert/update) gets the same 409 as the checked case.
 */
async function write<T>(store: Store, fn: (tx: Repositories) => Promise<T>, locks?: readonly AggregateLock[]): Promise<T> {
  try {
    return await store.transaction(fn, locks);
  } catch (error) {
    if (error instanceof UniqueViolation && /idps.*name_key/.test(error.detail)) throw nameTaken();
    throw error;
  }
}

export async function addJwtIdp(store: Store, ctx: RequestContext, scope: IdpScope, input: AddJwtIdpInput): Promise<{ details: ObjectDetails; idpId: string }> {
  requirePermission(ctx, scope.write);
  const idpId = newId();
  const stylingType = stylingTypeOf(input.stylingType);
  const autoRegister = input.autoRegister ?? false;
  const nameKey = nameKeyOf(input.name);
  return write(store, async (tx) => {
    if (await tx.idps.nameTaken(scope.ownerId, nameKey)) throw nameTaken();
    const jwtConfig = { jwtEndpoint: input.jwtEndpoint, issuer: input.issuer, keysEndpoint: input.keysEndpoint, headerName: input.headerName };
    const event = await tx.events.append({
      aggregateType: scope.aggregate,
      aggregateId: scope.ownerId,
      type: `${scope.aggregate}.idp.config.added`,
      payload: { idpConfigId: idpId, name: input.name, idpType: 'IDP_TYPE_JWT', stylingType, autoRegister, jwtConfig },
      creator: ctx.caller.userId,
      resourceOwner: scope.ownerId,
    });
    await tx.idps.insert({
      id: idpId,
      ownerId: scope.ownerId,
      ownerType: scope.ownerType,
      name: input.name,
      nameKey,
      state: 'IDP_STATE_ACTIVE',
      stylingType,
      autoRegister,
      jwtEndpoint: jwtConfig.jwtEndpoint,
      jwtIssuer: jwtConfig.issuer,
      jwtKeysEndpoint: jwtConfig.keysEndpoint,
      jwtHeaderName: jwtConfig.headerName,
      sequence: event.sequence,
      createdAt: event.createdAt,
      changedAt: event.createdAt,
    });
    return { details: addedDetails(event), idpId };
  });
}

/** The provider if this scope owns it; anything else (another owner, no such id) is 404. */
async function ownedIdp(tx: Repositories, scope: IdpScope, idpId: string): Promise<IdpRow> {
  const row = await tx.idps.get(idpId);
  if (!row || row.ownerId !== scope.ownerId) throw idpNotFound();
  return row;
}

/** Appends one event about `row` and applies `change` (plus sequence/changedAt) to it. */
async function applyChange(
  tx: Repositories,
  ctx: RequestContext,
  scope: IdpScope,
  row: IdpRow,
  type: string,
  payload: Record<string, unknown>,
  change: IdpChange,
): Promise<{ details: ObjectDetails }> {
  const event = await tx.events.append({
    aggregateType: scope.aggregate,
    aggregateId: scope.ownerId,
    type: `${scope.aggregate}.${type}`,
    payload: { idpConfigId: row.id, ...payload },
    creator: ctx.caller.userId,
    resourceOwner: scope.ownerId,
  });
  await tx.idps.update(row.id, { ...change, sequence: event.sequence, changedAt: event.createdAt });
  return { details: changedDetails(event) };
}

/** Full replacement of name, styling and auto-registration (ZITADEL's UpdateOrgIDP). */
export async function updateIdp(store: Store, ctx: RequestContext, scope: IdpScope, idpId: string, input: UpdateIdpInput): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, scope.write);
  const next = { name: input.name, stylingType: stylingTypeOf(input.stylingType), autoRegister: input.autoRegister ?? false };
  return write(store, async (tx) => {
    const row = await ownedIdp(tx, scope, idpId);
    const changes = Object.fromEntries(Object.entries(next).filter(([key, value]) => row[key as keyof typeof next] !== value));
    if (Object.keys(changes).length === 0) throw failedPrecondition('Org-jf9w', 'IDP Configuration has not been changed');
    const nameKey = nameKeyOf(next.name);
    if (nameKey !== row.nameKey && (await tx.idps.nameTaken(scope.ownerId, nameKey, row.id))) throw nameTaken();
    return applyChange(tx, ctx, scope, row, 'idp.config.changed', changes, { ...changes, nameKey });
  }, [[IDP_LOCK, idpId]]);
}

export async function updateIdpJwtConfig(store: Store, ctx: RequestContext, scope: IdpScope, idpId: string, input: JwtConfig): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, scope.write);
  return write(store, async (tx) => {
    const row = await ownedIdp(tx, scope, idpId);
    const current: JwtConfig = { jwtEndpoint: row.jwtEndpoint, issuer: row.jwtIssuer, keysEndpoint: row.jwtKeysEndpoint, headerName: row.jwtHeaderName };
    const changes = Object.fromEntries(
      (Object.keys(current) as (keyof JwtConfig)[]).filter((key) => current[key] !== input[key]).map((key) => [key, input[key]]),
    );
    if (Object.keys(changes).length === 0) throw failedPrecondition('Org-2k9fs', 'IDP Configuration has not been changed');
    return applyChange(tx, ctx, scope, row, 'idp.jwt.config.changed', changes, {
      jwtEndpoint: input.jwtEndpoint,
      jwtIssuer: input.issuer,
      jwtKeysEndpoint: input.keysEndpoint,
      jwtHeaderName: input.headerName,
    });
  }, [[IDP_LOCK, idpId]]);
}

export async function deactivateIdp(store: Store, ctx: RequestContext, scope: IdpScope, idpId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, scope.write);
  return write(store, async (tx) => {
    const row = await ownedIdp(tx, scope, idpId);
    if (row.state !== 'IDP_STATE_ACTIVE') throw failedPrecondition('Org-BBmd0', 'IDP Configuration is not active');
    return applyChange(tx, ctx, scope, row, 'idp.config.deactivated', {}, { state: 'IDP_STATE_INACTIVE' });
  }, [[IDP_LOCK, idpId]]);
}

export async function reactivateIdp(store: Store, ctx: RequestContext, scope: IdpScope, idpId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, scope.write);
  return write(store, async (tx) => {
    const row = await ownedIdp(tx, scope, idpId);
    if (row.state !== 'IDP_STATE_INACTIVE') throw failedPrecondition('Org-5Mo0d', 'IDP Configuration is not inactive');
    return applyChange(tx, ctx, scope, row, 'idp.config.reactivated', {}, { state: 'IDP_STATE_ACTIVE' });
  }, [[IDP_LOCK, idpId]]);
}

/** Removes the provider and its users' links to it; its name is free again afterwards. */
export async function removeIdp(store: Store, ctx: RequestContext, scope: IdpScope, idpId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, scope.write);
  return write(store, async (tx) => {
    const row = await ownedIdp(tx, scope, idpId);
    const event = await tx.events.append({
      aggregateType: scope.aggregate,
      aggregateId: scope.ownerId,
      type: `${scope.aggregate}.idp.config.removed`,
      payload: { idpConfigId: row.id, name: row.name },
      creator: ctx.caller.userId,
      resourceOwner: scope.ownerId,
    });
    await cascadeIdpRemoval(tx, ctx, row.id);
    await tx.idps.remove(row.id);
    return { details: changedDetails(event) };
  }, [[IDP_LOCK, idpId]]);
}
