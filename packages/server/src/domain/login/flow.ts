/**
 * What every login flow takes and gives. A step of a browser sign-in (the login form, the steps
 * after a password, an identity provider's sign-in, the mail's pages) is a domain function from
 * plain input to one `LoginOutcome`:
 * - `{ page }`: a page to show (pages.ts; ui/ renders it), with its status;
 * - `{ redirect }`: where the browser goes next;
 * - `{ refusal }`: the sign-in cannot go on: why, the way back, and a log line;
 * - `{ signIn }`: the person is signed in: oidc-provider records it on the attempt (its
 *   `interactionResult`, which needs the request) and sends the browser on to the application.
 * Whatever the browser keeps between steps travels as data (`cookies`: sealed values, set or
 * removed), and a line for the operator as `log`. The login routes (http/routes/login-*.ts) only
 * read the request into such input, and apply the outcome (`answer` in login-flow.ts): they hold
 * no flow, and the domain knows no HTTP (ZITADEL's API layer converts and calls one command).
 */
import type { PasswordVerifier } from '../../auth/password-verifier.js';
import type { SecretBox } from '../../secrets/secret-box.js';
import type { Store } from '../../store/store.js';
import type { OidcUpstreams } from '../federation/oidc-upstream.js';
import type { ProviderKeys } from '../federation/provider-keys.js';
import type { SlidingWindowLimit } from '../rate-limit.js';
import type { LoginPage } from './pages.js';
import { signInApp } from './sign-in-app.js';

/** What the login flows need of the running service. */
export interface LoginDeps {
  store: Store;
  instanceId: string;
  /** EXTERNAL_URL: every address the login hands out is built on it. */
  issuer: string;
  /** Seals what travels through the browser (the steps' cookie, an identity provider's state). */
  secrets: SecretBox;
  /** The bounded pool password checks run in (default: the process's own). */
  passwordVerifier?: PasswordVerifier;
  /** Identity providers' signing keys, cached per process. */
  providerKeys: ProviderKeys;
  /** OIDC identity providers' upstream issuers (discovery cached per process). */
  oidcUpstreams: OidcUpstreams;
  /** Accepted registration forms per client address (registration.ts), kept across app rebuilds. */
  registrations: SlidingWindowLimit;
}

/** The browser's sign-in attempt (oidc-provider's interaction), as the login flows read it. */
export interface SignInAttempt {
  uid: string;
  /** The authorization request's `client_id`: the application, and so the organisation, it is for. */
  clientId: string;
  /** `ui_locales`: the language of the pages' texts. */
  uiLocales?: string;
  /** `login_hint`, the login form's first value. */
  loginHint: string;
  /** The organisation an org scope names (`urn:zitadel:iam:org:id:…`, `…:org:domain:primary:…`). */
  requestedOrg?: { orgId?: string; primaryDomain?: string };
  /** oidc-provider's prompt: `login` or `consent`, why, and its checks' details. */
  prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
  /** The browser's session, when it has one. */
  session?: { accountId?: string; amr?: string[] };
}

/** A cookie the browser is to keep (`value`, for `maxAgeSeconds`) or drop (`remove`); always HttpOnly, SameSite=Lax. */
export type CookieChange = { name: string; path: string; value: string; maxAgeSeconds: number } | { name: string; path: string; remove: true };

/** A line for the operator's log. */
export interface LogNote {
  level: 'info' | 'warn';
  message: string;
  fields: Record<string, unknown>;
}

export type PageStatus = 200 | 400 | 401 | 403 | 404 | 429 | 503;

export type LoginOutcome = { cookies?: CookieChange[]; log?: LogNote } & (
  | { page: LoginPage; status?: PageStatus; retryAfterSeconds?: number }
  | { redirect: string; status: 302 | 303 }
  | { refusal: { message: string; backTo?: string }; status: 400 | 401 | 403 | 502 }
  | { signIn: { userId: string; amr: string[]; signedInAt?: number } }
);

export const showPage = (page: LoginPage, status?: PageStatus, retryAfterSeconds?: number): LoginOutcome => (retryAfterSeconds === undefined ? { page, status } : { page, status, retryAfterSeconds });

/** A sign-in attempt this browser no longer has: what happened, and the way on. */
export const EXPIRED: LoginOutcome = { page: { name: 'sign-in-expired' }, status: 400 };

/** The OIDC application the attempt is for (a machine client has none), and so its organisation. */
export const attemptApp = (deps: Pick<LoginDeps, 'store'>, attempt: Pick<SignInAttempt, 'clientId'>) => signInApp(deps.store, attempt.clientId);

/** The address of the attempt's login page. */
export const loginUrl = (deps: Pick<LoginDeps, 'issuer'>, uid: string) => `${deps.issuer.replace(/\/+$/, '')}/ui/login/${encodeURIComponent(uid)}`;

/** The words and status of a refused password check (password-login.ts). */
export const FAILURE_TEXT = {
  invalid_credentials: 'The login name or the password is wrong.',
  locked: 'This user is locked after too many failed attempts. Ask an administrator to unlock it.',
  inactive: 'This user is not active.',
  busy: 'Too many sign-ins are being checked right now. Please try again in a few seconds.',
  throttled: 'Too many sign-ins for this user or from this address are being checked right now. Please try again in a few seconds.',
} as const;
export const FAILURE_STATUS = { invalid_credentials: 401, locked: 403, inactive: 403, busy: 503, throttled: 429 } as const;
/** A check the pool could not take now: the person tries again in a few seconds. */
export const failureRetryAfter = (reason: keyof typeof FAILURE_TEXT) => (reason === 'busy' || reason === 'throttled' ? 5 : undefined);
/** Added to the wrong-password answer where people register: a new account waits for its confirmed address. */
export const UNCONFIRMED_HINT = 'Just created your account? Confirm your email address first: follow the link in the mail we sent you.';
