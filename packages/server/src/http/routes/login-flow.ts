/**
 * What every login route shares (oidc-ui.ts, login-steps.ts, login-federation.ts,
 * login-password-reset.ts): their dependencies, the sign-in attempt of this browser, the
 * application it is for, the words for a failed password check. Kept apart so that the routes
 * import it and not each other.
 */
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import type Provider from 'oidc-provider';
import type { PasswordVerifier } from '../../auth/password-verifier.js';
import type { OidcUpstreams } from '../../domain/federation/oidc-upstream.js';
import type { ProviderKeys } from '../../domain/federation/provider-keys.js';
import { signInApp } from '../../domain/login/sign-in-app.js';
import type { AccessTokenReader } from '../../oidc/access-tokens.js';
import type { SlidingWindowLimit } from '../../domain/rate-limit.js';
import type { SecretBox } from '../../secrets/secret-box.js';
import type { Store } from '../../store/store.js';
import { signInStartPage } from '../../ui/start-pages.js';

export interface OidcRouteDeps {
  provider: Provider;
  store: Store;
  readAccessToken: AccessTokenReader;
  issuer: string;
  /** The bounded pool password checks run in (default: the process's own). */
  passwordVerifier?: PasswordVerifier;
  /** Behind the TLS-terminating proxy: a client's address is the last X-Forwarded-For entry (client-address.ts). */
  trustProxy?: boolean;
  instanceId: string;
  /** Seals what a sign-in through an identity provider carries through the browser. */
  secrets: SecretBox;
  /** Identity providers' signing keys, cached per process. */
  providerKeys: ProviderKeys;
  /** OIDC identity providers' upstream issuers (discovery cached per process). */
  oidcUpstreams: OidcUpstreams;
  /** Accepted registration forms per client address (domain/login/registration.ts), kept across app rebuilds. */
  registrations: SlidingWindowLimit;
}

export const FAILURE_TEXT = {
  invalid_credentials: 'The login name or the password is wrong.',
  locked: 'This user is locked after too many failed attempts. Ask an administrator to unlock it.',
  inactive: 'This user is not active.',
  busy: 'Too many sign-ins are being checked right now. Please try again in a few seconds.',
  throttled: 'Too many sign-ins for this user or from this address are being checked right now. Please try again in a few seconds.',
} as const;
/** Added to the wrong-password answer where people register: a new account waits for its confirmed address. */
export const UNCONFIRMED_HINT = 'Just created your account? Confirm your email address first: follow the link in the mail we sent you.';
export const FAILURE_STATUS = { invalid_credentials: 401, locked: 403, inactive: 403, busy: 503, throttled: 429 } as const;

export const node = (c: Context) => c.env as unknown as HttpBindings;

export type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/** The sign-in attempt of this browser, if `uid` names it (oidc-provider's interaction cookie). */
export async function interactionOf(provider: Provider, c: Context, uid: string): Promise<Details | undefined> {
  try {
    const d = await provider.interactionDetails(node(c).incoming, node(c).outgoing);
    return d.uid === uid ? d : undefined;
  } catch {
    return undefined; // no or expired interaction cookie
  }
}

/** The OIDC application a sign-in is for (a machine client has none), and so its organisation. */
export async function appOf(store: Store, d: Details) {
  return signInApp(store, d.params.client_id);
}

/** A sign-in attempt this browser no longer has: what happened, and the way on (ui/start-pages.ts). */
export const expiredPage = (c: Context) => c.html(signInStartPage({ expired: true }), 400);
