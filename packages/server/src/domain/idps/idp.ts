/**
 * JWT identity providers (description §2.4/§4.3, reference §3): the enums as ZITADEL names them,
 * who owns a provider (an organisation or the instance), and the read shape.
 */
import { viewDetails, type ObjectDetails } from '../details.js';
import { notFound } from '../errors.js';
import type { IdpRow } from '../../store/repositories/idps.js';

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

export interface JwtConfig {
  jwtEndpoint: string;
  issuer: string;
  keysEndpoint: string;
  headerName: string;
}

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
  jwtConfig: JwtConfig;
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
    jwtConfig: { jwtEndpoint: row.jwtEndpoint, issuer: row.jwtIssuer, keysEndpoint: row.jwtKeysEndpoint, headerName: row.jwtHeaderName },
  };
}
