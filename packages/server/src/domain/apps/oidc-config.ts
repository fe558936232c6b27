/**
 * An OIDC application's settings as ZITADEL names them (AddOIDCAppRequest), their validation,
 * and the compliance check ZITADEL reports as `noneCompliant` / `complianceProblems`.
 */
import { invalidArgument } from '../errors.js';

export const OIDC_RESPONSE_TYPES = ['OIDC_RESPONSE_TYPE_CODE', 'OIDC_RESPONSE_TYPE_ID_TOKEN', 'OIDC_RESPONSE_TYPE_ID_TOKEN_TOKEN'] as const;
export const OIDC_GRANT_TYPES = [
  'OIDC_GRANT_TYPE_AUTHORIZATION_CODE',
  'OIDC_GRANT_TYPE_IMPLICIT',
  'OIDC_GRANT_TYPE_REFRESH_TOKEN',
  'OIDC_GRANT_TYPE_DEVICE_CODE',
  'OIDC_GRANT_TYPE_TOKEN_EXCHANGE',
] as const;
export const OIDC_APP_TYPES = ['OIDC_APP_TYPE_WEB', 'OIDC_APP_TYPE_USER_AGENT', 'OIDC_APP_TYPE_NATIVE'] as const;
export const OIDC_AUTH_METHOD_TYPES = ['OIDC_AUTH_METHOD_TYPE_BASIC', 'OIDC_AUTH_METHOD_TYPE_POST', 'OIDC_AUTH_METHOD_TYPE_NONE', 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT'] as const;
export const OIDC_TOKEN_TYPES = ['OIDC_TOKEN_TYPE_BEARER', 'OIDC_TOKEN_TYPE_JWT'] as const;
export const OIDC_VERSIONS = ['OIDC_VERSION_1_0'] as const;

/** Grant types this authorization server can run for an application. */
export const SUPPORTED_GRANT_TYPES: ReadonlySet<string> = new Set(['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_IMPLICIT', 'OIDC_GRANT_TYPE_REFRESH_TOKEN']);

export interface OidcAppConfig {
  redirectUris: string[];
  responseTypes: (typeof OIDC_RESPONSE_TYPES)[number][];
  grantTypes: (typeof OIDC_GRANT_TYPES)[number][];
  appType: (typeof OIDC_APP_TYPES)[number];
  authMethodType: (typeof OIDC_AUTH_METHOD_TYPES)[number];
  postLogoutRedirectUris: string[];
  version: (typeof OIDC_VERSIONS)[number];
  devMode: boolean;
  accessTokenType: (typeof OIDC_TOKEN_TYPES)[number];
  accessTokenRoleAssertion: boolean;
  idTokenRoleAssertion: boolean;
  idTokenUserinfoAssertion: boolean;
  /** Protobuf Duration as JSON ("1.5s"), 0–5 s. */
  clockSkew: string;
  additionalOrigins: string[];
  skipNativeAppSuccessPage: boolean;
}

export type OidcAppInput = Partial<OidcAppConfig>;

/** ZITADEL's defaults for fields left out (enum zero values, no URIs). */
export function withDefaults(input: OidcAppInput, base?: OidcAppConfig): OidcAppConfig {
  const d: OidcAppConfig = base ?? {
    redirectUris: [],
    responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
    grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
    appType: 'OIDC_APP_TYPE_WEB',
    authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
    postLogoutRedirectUris: [],
    version: 'OIDC_VERSION_1_0',
    devMode: false,
    accessTokenType: 'OIDC_TOKEN_TYPE_BEARER',
    accessTokenRoleAssertion: false,
    idTokenRoleAssertion: false,
    idTokenUserinfoAssertion: false,
    clockSkew: '0s',
    additionalOrigins: [],
    skipNativeAppSuccessPage: false,
  };
  const pick = <K extends keyof OidcAppConfig>(k: K): OidcAppConfig[K] => (input[k] === undefined ? d[k] : (input[k] as OidcAppConfig[K]));
  const list = <K extends 'responseTypes' | 'grantTypes'>(k: K): OidcAppConfig[K] => (input[k]?.length ? [...new Set(input[k])] : d[k]) as OidcAppConfig[K];
  return {
    redirectUris: pick('redirectUris'),
    responseTypes: list('responseTypes'),
    grantTypes: list('grantTypes'),
    appType: pick('appType'),
    authMethodType: pick('authMethodType'),
    postLogoutRedirectUris: pick('postLogoutRedirectUris'),
    version: pick('version'),
    devMode: pick('devMode'),
    accessTokenType: pick('accessTokenType'),
    accessTokenRoleAssertion: pick('accessTokenRoleAssertion'),
    idTokenRoleAssertion: pick('idTokenRoleAssertion'),
    idTokenUserinfoAssertion: pick('idTokenUserinfoAssertion'),
    clockSkew: pick('clockSkew'),
    additionalOrigins: pick('additionalOrigins'),
    skipNativeAppSuccessPage: pick('skipNativeAppSuccessPage'),
  };
}

/**
 * The configuration of a stored application, every field present: rows imported from documents
 * that leave optional fields out, or written by an earlier version, read like rows AddOIDCApp
 * wrote. Every read of `oidc_apps.config` goes through here.
 */
export function storedOidcConfig(config: unknown): OidcAppConfig {
  return withDefaults((config ?? {}) as OidcAppInput);
}

/** "1.5s" → seconds; undefined when not a Duration. */
export function durationSeconds(value: string): number | undefined {
  const m = /^(\d+)(\.\d{1,9})?s$/.exec(value);
  return m ? Number(m[1] + (m[2] ?? '')) : undefined;
}

function isAbsoluteUri(value: string): boolean {
  try {
    return new URL(value).protocol.length > 1;
  } catch {
    return false;
  }
}

/** Refuses what cannot work at all (ZITADEL's own InvalidArgument checks, plus what this server does not run). */
export function validateOidcConfig(config: OidcAppConfig): void {
  for (const uri of [...config.redirectUris, ...config.postLogoutRedirectUris]) {
    if (!isAbsoluteUri(uri)) throw invalidArgument('APPLICATION-1n8df', `Errors.Project.App.Invalid: redirect uri "${uri}" is not an absolute URI`);
    if (uri.includes('#')) throw invalidArgument('APPLICATION-1n8df', `Errors.Project.App.Invalid: redirect uri "${uri}" must not have a fragment`);
  }
  const skew = durationSeconds(config.clockSkew);
  if (skew === undefined || skew > 5) throw invalidArgument('APPLICATION-ejs4e', 'Errors.Project.App.OIDCClockSkewInvalid: clockSkew must be between 0s and 5s');
  const unsupported = config.grantTypes.filter((g) => !SUPPORTED_GRANT_TYPES.has(g));
  if (unsupported.length) throw invalidArgument('APPLICATION-Gr4nT', `grant type not supported by this server: ${unsupported.join(', ')}`);
  const code = config.responseTypes.includes('OIDC_RESPONSE_TYPE_CODE');
  const implicit = config.responseTypes.some((r) => r !== 'OIDC_RESPONSE_TYPE_CODE');
  if (code && !config.grantTypes.includes('OIDC_GRANT_TYPE_AUTHORIZATION_CODE')) {
    throw invalidArgument('APPLICATION-Gr4nT', 'response type CODE needs grant type AUTHORIZATION_CODE');
  }
  if (implicit && !config.grantTypes.includes('OIDC_GRANT_TYPE_IMPLICIT')) {
    throw invalidArgument('APPLICATION-Gr4nT', 'response types ID_TOKEN / ID_TOKEN_TOKEN need grant type IMPLICIT');
  }
  if (config.redirectUris.length === 0 && (code || implicit)) {
    throw invalidArgument('APPLICATION-R3d1r', 'at least one redirect uri is needed');
  }
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Redirect URIs that break the app type's rules (web: https only; native: a custom scheme or
 * http on loopback). Without devMode, such URIs are not accepted at authorization.
 */
export function nonCompliantRedirects(config: Pick<OidcAppConfig, 'appType'>, uris: string[]): string[] {
  return uris.filter((uri) => {
    const url = new URL(uri);
    if (config.appType === 'OIDC_APP_TYPE_NATIVE') return url.protocol === 'https:' ? false : url.protocol === 'http:' ? !LOOPBACK.has(url.hostname) : false;
    return url.protocol !== 'https:';
  });
}

/**
 * Why a redirect URI the application *did* register is refused at authorization (it breaks the app
 * type's rules and devMode is off), in words for the person who sees the error and the administrator
 * who can fix it; undefined when the URI is not among the registered ones or is not refused.
 */
export function refusedRedirectExplanation(config: OidcAppConfig, uri: string, kind: 'redirect' | 'post-logout' = 'redirect'): string | undefined {
  const registered = kind === 'redirect' ? config.redirectUris : config.postLogoutRedirectUris;
  if (config.devMode || !registered.includes(uri) || !nonCompliantRedirects(config, [uri]).length) return undefined;
  const rule =
    config.appType === 'OIDC_APP_TYPE_NATIVE'
      ? 'a native application may use https, its own scheme (such as com.example.app:/callback) or http only on loopback (localhost, 127.0.0.1, [::1])'
      : 'a web or user-agent application may only use https addresses';
  return `The application registered ${uri}, but outside development mode ${rule}. Tell its administrator to change that redirect URI to one that follows this rule, or to turn on development mode (devMode) for the application while it is being developed.`;
}

export function complianceProblems(config: OidcAppConfig): string[] {
  const problems: string[] = [];
  if (nonCompliantRedirects(config, config.redirectUris).length) {
    problems.push(config.appType === 'OIDC_APP_TYPE_NATIVE' ? 'Application.OIDC.V1.Native.RedirectURIs.InvalidScheme' : 'Application.OIDC.V1.Code.RedirectURIs.HttpOnlyForDevMode');
  }
  if (nonCompliantRedirects(config, config.postLogoutRedirectUris).length) problems.push('Application.OIDC.V1.PostLogoutRedirectURIs.HttpOnlyForDevMode');
  return problems;
}
