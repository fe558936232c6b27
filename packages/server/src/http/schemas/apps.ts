import { z } from '@hono/zod-openapi';
import {
  OIDC_APP_TYPES,
  OIDC_AUTH_METHOD_TYPES,
  OIDC_GRANT_TYPES,
  OIDC_RESPONSE_TYPES,
  OIDC_TOKEN_TYPES,
  OIDC_VERSIONS,
} from '../../domain/apps/oidc-config.js';
import { API_AUTH_METHOD_TYPES } from '../../domain/apps/api-apps.js';
import { KEY_TYPES } from '../../domain/apps/app-keys.js';
import { Details, ListDetails, ListQuery } from './common.js';

const id = z.string().min(1).max(200);
const uris = z.array(z.string().min(1).max(2000)).max(100);

export const AppParam = z.object({ projectId: id, appId: id });

export const OIDCResponseType = z.enum(OIDC_RESPONSE_TYPES).openapi('OIDCResponseType');
export const OIDCGrantType = z.enum(OIDC_GRANT_TYPES).openapi('OIDCGrantType');
export const OIDCAppType = z.enum(OIDC_APP_TYPES).openapi('OIDCAppType');
export const OIDCAuthMethodType = z.enum(OIDC_AUTH_METHOD_TYPES).openapi('OIDCAuthMethodType');
export const OIDCTokenType = z.enum(OIDC_TOKEN_TYPES).openapi('OIDCTokenType');
export const OIDCVersion = z.enum(OIDC_VERSIONS).openapi('OIDCVersion');
const ClockSkew = z.string().regex(/^\d+(\.\d{1,9})?s$/, 'clockSkew must be a duration like "1.5s"');

const oidcSettings = {
  redirectUris: uris.optional(),
  responseTypes: z.array(OIDCResponseType).max(3).optional(),
  grantTypes: z.array(OIDCGrantType).max(5).optional(),
  appType: OIDCAppType.optional(),
  authMethodType: OIDCAuthMethodType.optional(),
  postLogoutRedirectUris: uris.optional(),
  version: OIDCVersion.optional(),
  devMode: z.boolean().optional(),
  accessTokenType: OIDCTokenType.optional(),
  accessTokenRoleAssertion: z.boolean().optional(),
  idTokenRoleAssertion: z.boolean().optional(),
  idTokenUserinfoAssertion: z.boolean().optional(),
  clockSkew: ClockSkew.optional(),
  additionalOrigins: uris.optional(),
  skipNativeAppSuccessPage: z.boolean().optional(),
};

export const AddOIDCAppRequest = z.object({ name: z.string().trim().min(1).max(200), ...oidcSettings }).openapi('AddOIDCAppRequest');
export const UpdateOIDCAppConfigRequest = z.object(oidcSettings).openapi('UpdateOIDCAppConfigRequest');

export const LocalizedMessage = z.object({ key: z.string(), localizedMessage: z.string() }).openapi('LocalizedMessage');

export const AddOIDCAppResponse = z
  .object({
    appId: z.string(),
    details: Details,
    clientId: z.string(),
    clientSecret: z.string().optional(),
    noneCompliant: z.boolean(),
    complianceProblems: z.array(LocalizedMessage),
  })
  .openapi('AddOIDCAppResponse');

export const UpdateAppRequest = z.object({ name: z.string().trim().min(1).max(200) }).openapi('UpdateAppRequest');
export const RegenerateOIDCClientSecretResponse = z.object({ clientSecret: z.string(), details: Details });

export const UpdateOIDCAppConfigResponse = z.object({ details: Details, clientSecret: z.string().optional() });

export const OIDCConfig = z
  .object({
    redirectUris: z.array(z.string()),
    responseTypes: z.array(OIDCResponseType),
    grantTypes: z.array(OIDCGrantType),
    appType: OIDCAppType,
    clientId: z.string(),
    authMethodType: OIDCAuthMethodType,
    postLogoutRedirectUris: z.array(z.string()),
    version: OIDCVersion,
    noneCompliant: z.boolean(),
    complianceProblems: z.array(LocalizedMessage),
    devMode: z.boolean(),
    accessTokenType: OIDCTokenType,
    accessTokenRoleAssertion: z.boolean(),
    idTokenRoleAssertion: z.boolean(),
    idTokenUserinfoAssertion: z.boolean(),
    clockSkew: z.string(),
    additionalOrigins: z.array(z.string()),
    skipNativeAppSuccessPage: z.boolean(),
  })
  .openapi('OIDCConfig');

export const APIAuthMethodType = z.enum(API_AUTH_METHOD_TYPES).openapi('APIAuthMethodType');
export const APIConfig = z.object({ clientId: z.string(), authMethodType: APIAuthMethodType }).openapi('APIConfig');

export const App = z
  .object({
    id: z.string(),
    details: Details,
    state: z.enum(['APP_STATE_ACTIVE', 'APP_STATE_INACTIVE']),
    name: z.string(),
    oidcConfig: OIDCConfig.optional(),
    apiConfig: APIConfig.optional(),
  })
  .openapi('App');

export const AddAPIAppRequest = z.object({ name: z.string().min(1).max(200), authMethodType: APIAuthMethodType.optional() }).openapi('AddAPIAppRequest');
export const AddAPIAppResponse = z.object({ appId: z.string(), details: Details, clientId: z.string(), clientSecret: z.string().optional() });
export const UpdateAPIAppConfigRequest = z.object({ authMethodType: APIAuthMethodType.optional() }).openapi('UpdateAPIAppConfigRequest');
export const UpdateAPIAppConfigResponse = z.object({ details: Details, clientSecret: z.string().optional() });

// Application keys (domain/apps/app-keys.ts).
export const KeyType = z.enum(KEY_TYPES).openapi('KeyType');
export const AppKeyParam = z.object({ projectId: id, appId: id, keyId: id });
export const AddAppKeyRequest = z
  .object({ type: KeyType, expirationDate: z.iso.datetime({ offset: true, message: 'value must be an RFC 3339 date-time' }).optional() })
  .openapi('AddAppKeyRequest');
export const AddAppKeyResponse = z.object({ id: z.string(), details: Details, keyDetails: z.string() });
export const AppKey = z.object({ id: z.string(), details: Details, type: KeyType, expirationDate: z.string() }).openapi('AppKey');
export const AppKeyResponse = z.object({ key: AppKey });
export const ListAppKeysRequest = z.object({ query: ListQuery.optional() });
export const ListAppKeysResponse = z.object({ details: ListDetails, result: z.array(AppKey) });


export const AppResponse = z.object({ app: App });
export const ListAppsRequest = z.object({ query: ListQuery.optional() });
export const ListAppsResponse = z.object({ details: ListDetails, result: z.array(App) });
