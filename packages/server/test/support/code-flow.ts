/**
 * A person's sign-in as an application starts it with openid-client: the authorization request
 * (code with PKCE S256, a `state` when asked for), the login form with a login name and a password
 * (support/browser.ts), and the code's exchange at the token endpoint, checked as openid-client
 * checks it. The tests of tokens, claims and sessions start here.
 */
import * as oc from 'openid-client';
import { Browser, loginThroughForm } from './browser.js';

export interface CodeRequest {
  /** The authorization request's address. */
  url: string;
  verifier: string;
  state?: string;
}

/** An authorization request for `config`'s client: `params` (scope, prompt, …) beside the code challenge. */
export async function codeRequest(config: oc.Configuration, redirectUri: string, params: Record<string, string>, options: { state?: boolean } = {}): Promise<CodeRequest> {
  const verifier = oc.randomPKCECodeVerifier();
  const state = options.state ? oc.randomState() : undefined;
  const url = oc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    ...params,
    ...(state ? { state } : {}),
    code_challenge: await oc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  return { url: url.href, verifier, state };
}

/**
 * The request, then the login form (`options.browser` keeps its cookies across sign-ins). Returns
 * where the login ended (`callback`, the redirect URI with the code, or the `page` shown) and
 * `redeem`, the code's exchange (of `callback`, or of the one given).
 */
export async function signInThroughForm(
  config: oc.Configuration,
  redirectUri: string,
  loginName: string,
  password: string,
  params: Record<string, string>,
  options: { state?: boolean; browser?: Browser } = {},
) {
  const request = await codeRequest(config, redirectUri, params, options);
  const result = await loginThroughForm(options.browser ?? new Browser(), request.url, redirectUri, loginName, password);
  const redeem = (callback: URL | undefined = result.callback, checks: { idTokenExpected?: boolean } = {}) => {
    if (!callback) throw new Error(`the login did not reach the redirect URI: ${result.page?.status} ${result.page?.html.slice(0, 300)}`);
    return oc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: request.verifier, ...(request.state ? { expectedState: request.state } : {}), ...checks });
  };
  return { ...result, request, redeem };
}
