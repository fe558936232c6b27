/**
 * What travels through the browser (and the provider's proxy) during a sign-in through an
 * identity provider, sealed with the operator's key (secrets/secret-box.ts) so that nobody can
 * forge or alter it:
 * - `userAgentID`, sent to the provider's `jwtEndpoint` and forwarded back to us by its proxy
 *   (ZITADEL's name and role): which sign-in attempt (`uid`), which provider, and the hash of a
 *   random value kept in an HttpOnly cookie of the browser that chose the provider;
 * - for an OIDC provider, the `state` sent to the upstream issuer and brought back to its redirect
 *   URI: the same three, plus the PKCE verifier and the nonce of this authorization;
 * - the outcome, carried to the callback page in that browser: who signs in, or which identity
 *   asks to be linked.
 * Each expires after STATE_TTL_MS, and the callback accepts it only in the browser whose cookie
 * hashes to the sealed value, so a leaked callback URL is useless in another browser.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { SecretBox } from '../../secrets/secret-box.js';

export const STATE_TTL_MS = 10 * 60_000;
/** The browser's cookie; its path is the sign-in attempt's (`/ui/login/<uid>`). */
export const AGENT_COOKIE = 'idp_agent';

const USER_AGENT_PURPOSE = 'federation.user-agent';
const OUTCOME_PURPOSE = 'federation.outcome';
const OIDC_STATE_PURPOSE = 'federation.oidc-state';

export interface UserAgentState {
  uid: string;
  idpId: string;
  agent: string;
}

/** The identity a provider vouched for, as far as this service keeps it. */
export interface ExternalIdentity {
  idpId: string;
  externalUserId: string;
  externalUserName: string;
  /** The name a person sees for the identity (the OIDC provider's display-name mapping), if any. */
  displayName?: string;
  /** The profile claims auto-registration uses (strings and `email_verified` only). */
  claims: Record<string, string | boolean>;
}

export type Outcome = { kind: 'signed-in'; userId: string } | { kind: 'link'; identity: ExternalIdentity; reason: 'no-auto-register' | 'user-name-taken' };

export const newAgentSecret = () => randomBytes(24).toString('base64url');
export const agentOf = (cookieValue: string) => createHash('sha256').update(cookieValue).digest('base64url');

function seal(box: SecretBox, purpose: string, value: object, now: number): string {
  return box.seal(JSON.stringify({ ...value, exp: now + STATE_TTL_MS }), purpose);
}

function open<T>(box: SecretBox, purpose: string, sealed: string, now: number): T | undefined {
  try {
    const value = JSON.parse(box.openText(sealed, purpose)) as T & { exp: number };
    return typeof value.exp === 'number' && value.exp > now ? value : undefined;
  } catch {
    return undefined; // forged, altered, sealed for another purpose or by an unknown key
  }
}

export const sealUserAgent = (box: SecretBox, state: UserAgentState, now = Date.now()) => seal(box, USER_AGENT_PURPOSE, state, now);
export const openUserAgent = (box: SecretBox, sealed: string, now = Date.now()) => open<UserAgentState>(box, USER_AGENT_PURPOSE, sealed, now);

export interface OutcomeState {
  uid: string;
  agent: string;
  outcome: Outcome;
}
export const sealOutcome = (box: SecretBox, state: OutcomeState, now = Date.now()) => seal(box, OUTCOME_PURPOSE, state, now);
export const openOutcome = (box: SecretBox, sealed: string, now = Date.now()) => open<OutcomeState>(box, OUTCOME_PURPOSE, sealed, now);

export interface OidcState extends UserAgentState {
  codeVerifier: string;
  nonce: string;
}
export const sealOidcState = (box: SecretBox, state: OidcState, now = Date.now()) => seal(box, OIDC_STATE_PURPOSE, state, now);
export const openOidcState = (box: SecretBox, sealed: string, now = Date.now()) => open<OidcState>(box, OIDC_STATE_PURPOSE, sealed, now);
