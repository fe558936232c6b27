import { z } from '@hono/zod-openapi';
import { IDP_FIELD_NAMES, IDP_OWNER_TYPES, IDP_STATES, IDP_TEXT_MAX, OIDC_MAPPING_FIELDS, STYLING_TYPES } from '../../domain/idps/idp.js';
import { Details, ListDetails, ListQuery, TextQueryMethod } from './common.js';

const text = () => z.string().min(1).max(IDP_TEXT_MAX);

/** Beyond ZITADEL (length only): endpoints the service will call must be absolute http(s) URLs. */
const httpUrl = () =>
  text().refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '';
    } catch {
      return false;
    }
  }, 'value must be an absolute http:// or https:// URL');

/** Names or the proto numbers, as protojson accepts enums. */
const StylingTypeInput = z.union([z.enum(STYLING_TYPES), z.literal(0), z.literal(1)]);

export const AddJWTIDPRequest = z
  .object({
    name: text(),
    stylingType: StylingTypeInput.optional(),
    jwtEndpoint: httpUrl(),
    issuer: text(),
    keysEndpoint: httpUrl(),
    headerName: text(),
    autoRegister: z.boolean().optional(),
  })
  .openapi('AddJWTIDPRequest');

export const AddJWTIDPResponse = z.object({ details: Details, idpId: z.string() }).openapi('AddJWTIDPResponse');

/** Names or the proto numbers (0, 1, 2). */
const MappingFieldInput = z.union([z.enum(OIDC_MAPPING_FIELDS), z.literal(0), z.literal(1), z.literal(2)]);
/** Scope tokens (RFC 6749 §3.3: printable ASCII without space, quote or backslash). */
const Scopes = z.array(z.string().min(1).max(IDP_TEXT_MAX).regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'a scope is printable ASCII without spaces, quotes or backslashes')).max(20);

export const AddOIDCIDPRequest = z
  .object({
    name: text(),
    stylingType: StylingTypeInput.optional(),
    clientId: text(),
    clientSecret: text(),
    issuer: httpUrl(),
    scopes: Scopes.optional(),
    displayNameMapping: MappingFieldInput.optional(),
    usernameMapping: MappingFieldInput.optional(),
    autoRegister: z.boolean().optional(),
  })
  .openapi('AddOIDCIDPRequest');

export const UpdateIDPOIDCConfigRequest = z
  .object({
    clientId: text(),
    clientSecret: text().optional(),
    issuer: httpUrl(),
    scopes: Scopes.optional(),
    displayNameMapping: MappingFieldInput.optional(),
    usernameMapping: MappingFieldInput.optional(),
  })
  .openapi('UpdateIDPOIDCConfigRequest');

export const IDPOIDCConfig = z
  .object({
    clientId: z.string(),
    issuer: z.string(),
    scopes: z.array(z.string()),
    displayNameMapping: z.enum(OIDC_MAPPING_FIELDS),
    usernameMapping: z.enum(OIDC_MAPPING_FIELDS),
  })
  .openapi('IDPOIDCConfig');

export const JWTConfig = z
  .object({ jwtEndpoint: z.string(), issuer: z.string(), keysEndpoint: z.string(), headerName: z.string() })
  .openapi('JWTConfig');

export const IDP = z
  .object({
    id: z.string(),
    details: Details,
    state: z.enum(IDP_STATES),
    name: z.string(),
    stylingType: z.enum(STYLING_TYPES),
    owner: z.enum(IDP_OWNER_TYPES),
    autoRegister: z.boolean(),
    jwtConfig: JWTConfig.optional(),
    oidcConfig: IDPOIDCConfig.optional(),
  })
  .openapi('IDP');

export const IDPResponse = z.object({ idp: IDP }).openapi('IDPResponse');

export const UpdateIDPRequest = z
  .object({ name: text(), stylingType: StylingTypeInput.optional(), autoRegister: z.boolean().optional() })
  .openapi('UpdateIDPRequest');

export const UpdateIDPJWTConfigRequest = z
  .object({ jwtEndpoint: httpUrl(), issuer: text(), keysEndpoint: httpUrl(), headerName: text() })
  .openapi('UpdateIDPJWTConfigRequest');

const IdpQuery = z.object({
  idpIdQuery: z.object({ id: z.string().max(200) }).optional(),
  idpNameQuery: z.object({ name: z.string().max(IDP_TEXT_MAX), method: TextQueryMethod.optional() }).optional(),
  ownerTypeQuery: z.object({ ownerType: z.enum(['IDP_OWNER_TYPE_SYSTEM', 'IDP_OWNER_TYPE_ORG']) }).optional(),
});

export const ListIDPsRequest = z
  .object({
    query: ListQuery.optional(),
    sortingColumn: z.enum(IDP_FIELD_NAMES).optional(),
    queries: z.array(IdpQuery).max(20).optional(),
  })
  .openapi('ListIDPsRequest');

export const ListIDPsResponse = z
  .object({ details: ListDetails, sortingColumn: z.enum(IDP_FIELD_NAMES), result: z.array(IDP) })
  .openapi('ListIDPsResponse');

export const IdpIdParam = z.object({ idpId: z.string().min(1).max(200) });

const DEPRECATION_HEADERS = {
  Deprecation: { description: 'RFC 9745: deprecated since this moment, e.g. `@1688169599`.', schema: { type: 'string' as const } },
  Link: { description: 'The deprecation notice (`rel="deprecation"`) and the replacement (`rel="successor-version"`).', schema: { type: 'string' as const } },
};

/**
 * Documents the deprecation headers on a deprecated operation's responses (all but 413, which
 * the body limit answers before the route runs).
 */
export function withDeprecationHeaders<R extends Record<number, object>>(responses: R): R {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [status, status === '413' ? response : { ...response, headers: DEPRECATION_HEADERS }]),
  ) as R;
}
