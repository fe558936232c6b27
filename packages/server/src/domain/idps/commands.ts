/**
 * Writes of identity-provider configurations (reference §3, org_idp_config.go), JWT and OIDC.
 *
 * Events: ZITADEL appends two on creation (`<agg>.idp.config.added` with name/styling/
 * auto-register, then `<agg>.idp.jwt.config.added`). Here creation is ONE event,
 * `<agg>.idp.config.added`, whose payload carries the JWT settings too: the audit trail is as
 * complete, and `details.sequence` is still the owning aggregate's (organisation's or
 * instance's) sequence after the write. Later changes: `<agg>.idp.config.changed`,
 * `<agg>.idp.jwt.config.changed` (payloads hold only what changed), `.deactivated`,
 * `.reactivated`, `.removed`. OIDC providers alike, with `<agg>.idp.oidc.config.changed`; their
 * client secret is sealed at rest and never part of an event (a change says only
 * `clientSecretChanged: true`).
 */

import type { SecretBox } from '../../secrets/secret-box.js';
import type { IdpChange, IdpRow } from '../../store/repositories/idps.js';
import type { AggregateLock, Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { addedDetails, changedDetails, type ObjectDetails } from '../details.js';
import { alreadyExists, failedPrecondition, notFound, UniqueViolation } from '../errors.js';
import { cascadeIdpRemoval } from '../federation/links.js';
import { newId } from '../ids.js';
import { requireAuthorityOverUsersLinkedTo } from '../users/guard.js';
import {
  type IdpScope,
  idpNotFound,
  isOidcIdp,
  type JwtConfig,
  jwtConfigOf,
  mappingFieldOf,
  nameKeyOf,
  OIDC_CLIENT_SECRET_PURPOSE,
  type OidcConfig,
  type OidcMappingField,
  oidcConfigOf,
  type StylingType,
  stylingTypeOf,
} from './idp.js';

/** A JWT provider's settings as given: no audience is an empty one when adding, and keeps the current one when updating. */
export type JwtConfigInput = Omit<JwtConfig, 'audience'> & { audience?: string };

export interface AddJwtIdpInput extends JwtConfigInput {
  name: string;
  stylingType?: StylingType | 0 | 1;
  autoRegister?: boolean;
}

export interface OidcConfigInput {
  clientId: string;
  /** Required when adding; when updating, absent keeps the current secret. */
  clientSecret?: string;
  issuer: string;
  scopes?: string[];
  displayNameMapping?: OidcMappingField | 0 | 1 | 2;
  usernameMapping?: OidcMappingField | 0 | 1 | 2;
}

export interface AddOidcIdpInput extends OidcConfigInput {
  name: string;
  clientSecret: string;
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

/** The columns of the provider's kind (the other kind's stay empty: see the table's comment). */
type KindColumns = Pick<IdpRow, 'idpType' | 'oidcConfig' | 'oidcClientSecretSealed' | 'jwtEndpoint' | 'jwtIssuer' | 'jwtKeysEndpoint' | 'jwtHeaderName' | 'jwtAudience'>;

/**
 * What adding a provider of either kind does: the name check, one `<agg>.idp.config.added` event
 * with the kind's settings (`payload`), and the row with the kind's columns.
 */
async function addIdp(
  store: Store,
  ctx: RequestContext,
  scope: IdpScope,
  input: { name: string; stylingType?: StylingType | 0 | 1; autoRegister?: boolean },
  kind: { payload: Record<string, unknown>; columns: KindColumns },
): Promise<{ details: ObjectDetails; idpId: string }> {
  requirePermission(ctx, scope.write);
  const idpId = newId();
  const stylingType = stylingTypeOf(input.stylingType);
  const autoRegister = input.autoRegister ?? false;
  const nameKey = nameKeyOf(input.name);
  return write(store, async (tx) => {
    if (await tx.idps.nameTaken(scope.ownerId, nameKey)) throw nameTaken();
    const event = await tx.events.append({
      aggregateType: scope.aggregate,
      aggregateId: scope.ownerId,
      type: `${scope.aggregate}.idp.config.added`,
      payload: { idpConfigId: idpId, name: input.name, idpType: kind.columns.idpType, stylingType, autoRegister, ...kind.payload },
      creator: ctx.caller.userId,
      resourceOwner: scope.ownerId,
    });
    await tx.idps.insert({
      ...kind.columns,
      id: idpId,
      ownerId: scope.ownerId,
      ownerType: scope.ownerType,
      name: input.name,
      nameKey,
      state: 'IDP_STATE_ACTIVE',
      stylingType,
      autoRegister,
      sequence: event.sequence,
      createdAt: event.createdAt,
      changedAt: event.createdAt,
    });
    return { details: addedDetails(event), idpId };
  });
}

export async function addJwtIdp(store: Store, ctx: RequestContext, scope: IdpScope, input: AddJwtIdpInput): Promise<{ details: ObjectDetails; idpId: string }> {
  const jwtConfig: JwtConfig = { jwtEndpoint: input.jwtEndpoint, issuer: input.issuer, keysEndpoint: input.keysEndpoint, headerName: input.headerName, audience: input.audience ?? '' };
  return addIdp(store, ctx, scope, input, {
    payload: { jwtConfig },
    columns: {
      idpType: 'IDP_TYPE_JWT',
      oidcConfig: null,
      oidcClientSecretSealed: null,
      jwtEndpoint: jwtConfig.jwtEndpoint,
      jwtIssuer: jwtConfig.issuer,
      jwtKeysEndpoint: jwtConfig.keysEndpoint,
      jwtHeaderName: jwtConfig.headerName,
      jwtAudience: jwtConfig.audience,
    },
  });
}

/** The stored form of an OIDC provider's settings (scopes in the order given, without repeats). */
function oidcConfigFrom(input: OidcConfigInput): OidcConfig {
  return {
    clientId: input.clientId,
    issuer: input.issuer,
    scopes: [...new Set(input.scopes ?? [])],
    displayNameMapping: mappingFieldOf(input.displayNameMapping),
    usernameMapping: mappingFieldOf(input.usernameMapping),
  };
}

export async function addOidcIdp(store: Store, secrets: SecretBox, ctx: RequestContext, scope: IdpScope, input: AddOidcIdpInput): Promise<{ details: ObjectDetails; idpId: string }> {
  requirePermission(ctx, scope.write);
  const oidcConfig = oidcConfigFrom(input);
  // The secret is sealed for the row and never part of the event.
  return addIdp(store, ctx, scope, input, { payload: { oidcConfig }, columns: oidcRowFields(oidcConfig, secrets.seal(input.clientSecret, OIDC_CLIENT_SECRET_PURPOSE)) });
}

/** The columns an OIDC provider fills (the JWT ones stay empty: see the table's comment). */
export function oidcRowFields(oidcConfig: OidcConfig, clientSecretSealed: string | null): KindColumns {
  return {
    idpType: 'IDP_TYPE_OIDC',
    oidcConfig,
    oidcClientSecretSealed: clientSecretSealed,
    jwtEndpoint: '',
    jwtIssuer: '',
    jwtKeysEndpoint: '',
    jwtHeaderName: '',
    jwtAudience: '',
  };
}

/** The provider if this scope owns it; anything else (another owner, no such id) is 404. */
/**
 * The provider of the scope a command changes, deactivates or removes: 404 when missing, 403 when
 * a user who signs in with it holds roles the caller may not grant (domain/users/guard.ts).
 */
async function idpToChange(tx: Repositories, ctx: RequestContext, scope: IdpScope, idpId: string): Promise<IdpRow> {
  const row = await tx.idps.get(idpId);
  if (!row || row.ownerId !== scope.ownerId) throw idpNotFound();
  await requireAuthorityOverUsersLinkedTo(tx, ctx, row.id);
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
  return write(
    store,
    async (tx) => {
      const row = await idpToChange(tx, ctx, scope, idpId);
      const changes = Object.fromEntries(Object.entries(next).filter(([key, value]) => row[key as keyof typeof next] !== value));
      if (Object.keys(changes).length === 0) throw failedPrecondition('Org-jf9w', 'IDP Configuration has not been changed');
      const nameKey = nameKeyOf(next.name);
      if (nameKey !== row.nameKey && (await tx.idps.nameTaken(scope.ownerId, nameKey, row.id))) throw nameTaken();
      return applyChange(tx, ctx, scope, row, 'idp.config.changed', changes, { ...changes, nameKey });
    },
    [[IDP_LOCK, idpId]],
  );
}

/**
 * Replaces a JWT provider's settings (ZITADEL's UpdateOrgIDPJWTConfig). An absent `audience` keeps
 * the current one: ZITADEL's messages have no such field, so an update over gRPC or Connect (whose
 * REST call never names it) must not drop the check an administrator set; `""` removes it.
 */
export async function updateIdpJwtConfig(store: Store, ctx: RequestContext, scope: IdpScope, idpId: string, input: JwtConfigInput): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, scope.write);
  return write(
    store,
    async (tx) => {
      const row = await idpToChange(tx, ctx, scope, idpId);
      if (isOidcIdp(row)) throw notFound('Org-67J9d', 'The identity provider has no JWT configuration: it is an OIDC provider (change it with its oidc_config)');
      const current = jwtConfigOf(row);
      const next: JwtConfig = { jwtEndpoint: input.jwtEndpoint, issuer: input.issuer, keysEndpoint: input.keysEndpoint, headerName: input.headerName, audience: input.audience ?? current.audience };
      const changes = Object.fromEntries((Object.keys(current) as (keyof JwtConfig)[]).filter((key) => current[key] !== next[key]).map((key) => [key, next[key]]));
      if (Object.keys(changes).length === 0) throw failedPrecondition('Org-2k9fs', 'IDP Configuration has not been changed');
      return applyChange(tx, ctx, scope, row, 'idp.jwt.config.changed', changes, {
        jwtEndpoint: next.jwtEndpoint,
        jwtIssuer: next.issuer,
        jwtKeysEndpoint: next.keysEndpoint,
        jwtHeaderName: next.headerName,
        jwtAudience: next.audience,
      });
    },
    [[IDP_LOCK, idpId]],
  );
}

/**
 * Replaces an OIDC provider's settings (ZITADEL's UpdateOrgIDPOIDCConfig); an absent
 * `clientSecret` keeps the current one.
 */
export async function updateIdpOidcConfig(store: Store, secrets: SecretBox, ctx: RequestContext, scope: IdpScope, idpId: string, input: OidcConfigInput): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, scope.write);
  const next = oidcConfigFrom(input);
  const sealed = input.clientSecret ? secrets.seal(input.clientSecret, OIDC_CLIENT_SECRET_PURPOSE) : undefined;
  return write(
    store,
    async (tx) => {
      const row = await idpToChange(tx, ctx, scope, idpId);
      if (!isOidcIdp(row)) throw notFound('Org-67J9d', 'The identity provider has no OIDC configuration: it is a JWT provider (change it with its jwt_config)');
      const current = oidcConfigOf(row);
      const changes: Record<string, unknown> = Object.fromEntries(
        (Object.keys(next) as (keyof OidcConfig)[]).filter((key) => JSON.stringify(current[key]) !== JSON.stringify(next[key])).map((key) => [key, next[key]]),
      );
      // A secret is never compared in the clear: giving one always counts as a change.
      if (sealed) changes.clientSecretChanged = true;
      if (Object.keys(changes).length === 0) throw failedPrecondition('Org-2k9fs', 'IDP Configuration has not been changed');
      return applyChange(tx, ctx, scope, row, 'idp.oidc.config.changed', changes, {
        oidcConfig: next,
        ...(sealed ? { oidcClientSecretSealed: sealed } : {}),
      });
    },
    [[IDP_LOCK, idpId]],
  );
}

export async function deactivateIdp(store: Store, ctx: RequestContext, scope: IdpScope, idpId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, scope.write);
  return write(
    store,
    async (tx) => {
      const row = await idpToChange(tx, ctx, scope, idpId);
      if (row.state !== 'IDP_STATE_ACTIVE') throw failedPrecondition('Org-BBmd0', 'IDP Configuration is not active');
      return applyChange(tx, ctx, scope, row, 'idp.config.deactivated', {}, { state: 'IDP_STATE_INACTIVE' });
    },
    [[IDP_LOCK, idpId]],
  );
}

export async function reactivateIdp(store: Store, ctx: RequestContext, scope: IdpScope, idpId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, scope.write);
  return write(
    store,
    async (tx) => {
      const row = await idpToChange(tx, ctx, scope, idpId);
      if (row.state !== 'IDP_STATE_INACTIVE') throw failedPrecondition('Org-5Mo0d', 'IDP Configuration is not inactive');
      return applyChange(tx, ctx, scope, row, 'idp.config.reactivated', {}, { state: 'IDP_STATE_ACTIVE' });
    },
    [[IDP_LOCK, idpId]],
  );
}

/** Removes the provider and its users' links to it; its name is free again afterwards. */
export async function removeIdp(store: Store, ctx: RequestContext, scope: IdpScope, idpId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, scope.write);
  return write(
    store,
    async (tx) => {
      const row = await idpToChange(tx, ctx, scope, idpId);
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
    },
    [[IDP_LOCK, idpId]],
  );
}

/** Re-seals OIDC providers' client secrets sealed with an earlier operator key (commands/resealers.ts). */
export async function resealIdpClientSecrets(store: Store, secrets: SecretBox): Promise<number> {
  return store.transaction(async (tx) => {
    let count = 0;
    for (const row of await tx.idps.withSealedSecrets()) {
      if (!row.oidcClientSecretSealed || !secrets.isStale(row.oidcClientSecretSealed)) continue;
      const plain = secrets.openText(row.oidcClientSecretSealed, OIDC_CLIENT_SECRET_PURPOSE);
      await tx.idps.update(row.id, { oidcClientSecretSealed: secrets.seal(plain, OIDC_CLIENT_SECRET_PURPOSE) });
      count++;
    }
    return count;
  });
}
