/**
 * Identity providers (description §2.4/§4.3, reference §3): ZITADEL's legacy "IDP config" of two
 * kinds, JWT (a token fetched from an endpoint) and OIDC (the authorization-code flow against an
 * upstream issuer). The enums as ZITADEL names them, who owns a provider (an organisation or the
 * instance), and the read shape.
 */

import type { IdpRow } from '../../store/repositories/idps.js';
import { type ObjectDetails, viewDetails } from '../details.js';
import { notFound } from '../errors.js';

export const IDP_STATES = ['IDP_STATE_UNSPECIFIED', 'IDP_STATE_ACTIVE', 'IDP_STATE_INACTIVE'] as const;
export type IdpState = (typeof IDP_STATES)[number];

export const STYLING_TYPES = ['STYLING_TYPE_UNSPECIFIED', 'STYLING_TYPE_GOOGLE'] as const;
export type StylingType = (typeof STYLING_TYPES)[number];

export const IDP_OWNER_TYPES = ['IDP_OWNER_TYPE_UNSPECIFIED', 'IDP_OWNER_TYPE_SYSTEM', 'IDP_OWNER_TYPE_ORG'] as const;
export type IdpOwnerType = (typeof IDP_OWNER_TYPES)[number];

export const IDP_FIELD_NAMES = ['IDP_FIELD_NAME_UNSPECIFIED', 'IDP_FIELD_NAME_NAME'] as const;
export type IdpFieldName = (typeof IDP_FIELD_NAMES)[number];

/** Limits of description §8: every text field of the configuration. */
export const IDP_TEXT_MAX = 200;

/** Enums arrive as names or as their proto numbers (protojson accepts both). */
export function stylingTypeOf(input: StylingType | 0 | 1 | undefined): StylingType {
  if (input === undefined) return 'STYLING_TYPE_UNSPECIFIED';
  return typeof input === 'number' ? STYLING_TYPES[input] : input;
}

export const IDP_TYPES = ['IDP_TYPE_JWT', 'IDP_TYPE_OIDC'] as const;
export type IdpType = (typeof IDP_TYPES)[number];

/** Which claim of the upstream's ID token becomes the user name or the display name. */
export const OIDC_MAPPING_FIELDS = ['OIDC_MAPPING_FIELD_UNSPECIFIED', 'OIDC_MAPPING_FIELD_PREFERRED_USERNAME', 'OIDC_MAPPING_FIELD_EMAIL'] as const;
export type OidcMappingField = (typeof OIDC_MAPPING_FIELDS)[number];

export function mappingFieldOf(input: OidcMappingField | 0 | 1 | 2 | undefined): OidcMappingField {
  if (input === undefined) return 'OIDC_MAPPING_FIELD_UNSPECIFIED';
  return typeof input === 'number' ? OIDC_MAPPING_FIELDS[input] : input;
}

/** An OIDC provider's settings as read back: the client secret is never among them. */
export interface OidcConfig {
  clientId: string;
  issuer: string;
  scopes: string[];
  displayNameMapping: OidcMappingField;
  usernameMapping: OidcMappingField;
}

/** Purpose the client secret is sealed for (secrets/secret-box.ts). */
export const OIDC_CLIENT_SECRET_PURPOSE = 'idp.oidc.client-secret';

export interface JwtConfig {
  jwtEndpoint: string;
  issuer: string;
  keysEndpoint: string;
  headerName: string;
  /**
   * The value the token's `aud` must contain. Empty: `aud` is not checked, so a token the issuer
   * signed for any of its applications signs in (ZITADEL's meaning since GHSA-g5h5-m4hm-xjrr,
   * kept for compatibility; ZITADEL #12620).
   */
  audience: string;
}

/** A JWT provider's settings from its row. */
export const jwtConfigOf = (row: IdpRow): JwtConfig => ({
  jwtEndpoint: row.jwtEndpoint,
  issuer: row.jwtIssuer,
  keysEndpoint: row.jwtKeysEndpoint,
  headerName: row.jwtHeaderName,
  audience: row.jwtAudience,
});

/**
 * Whose providers a call works on. Management calls act on the context organisation (and read
 * the instance's providers too); admin calls act on the instance. The owner decides the
 * aggregate the events go to, and with it `details.sequence`.
 */
export interface IdpScope {
  ownerType: 'IDP_OWNER_TYPE_ORG' | 'IDP_OWNER_TYPE_SYSTEM';
  ownerId: string;
  /** Event aggregate and event-type prefix: 'org' or 'instance'. */
  aggregate: 'org' | 'instance';
  read: string;
  write: string;
}

export function orgScope(orgId: string): IdpScope {
  return { ownerType: 'IDP_OWNER_TYPE_ORG', ownerId: orgId, aggregate: 'org', read: 'org.idp.read', write: 'org.idp.write' };
}

export function instanceScope(instanceId: string): IdpScope {
  return { ownerType: 'IDP_OWNER_TYPE_SYSTEM', ownerId: instanceId, aggregate: 'instance', read: 'iam.idp.read', write: 'iam.idp.write' };
}

/** The name key that makes names unique per owner, ignoring letter case. */
export const nameKeyOf = (name: string) => name.toLowerCase();

export const idpNotFound = () => notFound('QUERY-rhR2o', "Identity Provider Configuration doesn't exist");

export interface IdpView {
  id: string;
  details: ObjectDetails;
  state: IdpState;
  name: string;
  stylingType: StylingType;
  owner: IdpOwnerType;
  autoRegister: boolean;
  /** Exactly one of the two, by the provider's kind (ZITADEL's `oneof config`). */
  jwtConfig?: JwtConfig;
  oidcConfig?: OidcConfig;
}

export const isOidcIdp = (row: Pick<IdpRow, 'idpType'>) => row.idpType === 'IDP_TYPE_OIDC';

export function oidcConfigOf(row: IdpRow): OidcConfig {
  const config = row.oidcConfig ?? { clientId: '', issuer: '', scopes: [], displayNameMapping: 'OIDC_MAPPING_FIELD_UNSPECIFIED', usernameMapping: 'OIDC_MAPPING_FIELD_UNSPECIFIED' };
  return {
    clientId: config.clientId,
    issuer: config.issuer,
    scopes: [...config.scopes],
    displayNameMapping: config.displayNameMapping as OidcMappingField,
    usernameMapping: config.usernameMapping as OidcMappingField,
  };
}

export function toIdpView(row: IdpRow): IdpView {
  return {
    id: row.id,
    details: viewDetails(row, row.ownerId),
    state: row.state as IdpState,
    name: row.name,
    stylingType: row.stylingType as StylingType,
    owner: row.ownerType as IdpOwnerType,
    autoRegister: row.autoRegister,
    ...(isOidcIdp(row) ? { oidcConfig: oidcConfigOf(row) } : { jwtConfig: jwtConfigOf(row) }),
  };
}
