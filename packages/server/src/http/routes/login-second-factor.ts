/**
 * The login page's second step for users with an authenticator app (domain/login/totp.ts): after
 * the password (or the password that links an identity provider's identity), the browser gets an
 * HttpOnly cookie sealed with the operator's key (who passed the password, for which sign-in
 * attempt, for five minutes) and the code form; `POST /ui/login/{uid}/otp` checks the code and
 * finishes the sign-in. Nothing in the form says who the user is, so it cannot be changed.
 */
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { checkTotpLogin } from '../../domain/login/totp.js';
import { linkIdentity, SignInRefused } from '../../domain/federation/sign-in.js';
import type { ExternalIdentity } from '../../domain/federation/browser-state.js';
import type { AppEnv } from '../env.js';
import { expiredPage, interactionOf, node, type OidcRouteDeps } from './oidc-ui.js';
import { loginPage, otpPage } from './oidc-ui-pages.js';

const PENDING_COOKIE = 'login_otp';
const PURPOSE = 'login.second-factor';
export const SECOND_FACTOR_TTL_MS = 5 * 60_000;

interface Pending {
  uid: string;
  userId: string;
  /** Set when the password was given to link an identity provider's identity (login-federation.ts). */
  link?: ExternalIdentity;
  exp: number;
}

const cookiePath = (uid: string) => `/ui/login/${uid}`;

/** Remembers, in this browser, that `userId` passed the password of sign-in `uid`; shows the code form. */
export function askSecondFactor(c: Context, deps: OidcRouteDeps, uid: string, userId: string, link?: ExternalIdentity) {
  const pending: Pending = { uid, userId, link, exp: Date.now() + SECOND_FACTOR_TTL_MS };
  setCookie(c, PENDING_COOKIE, deps.secrets.seal(JSON.stringify(pending), PURPOSE), {
    path: cookiePath(uid),
    httpOnly: true,
    sameSite: 'Lax',
    secure: deps.issuer.startsWith('https:'),
    maxAge: SECOND_FACTOR_TTL_MS / 1000,
  });
  return c.html(otpPage({ uid }), 200);
}

function pendingOf(c: Context, deps: OidcRouteDeps, uid: string): Pending | undefined {
  const sealed = getCookie(c, PENDING_COOKIE);
  if (!sealed) return undefined;
  try {
    const p = JSON.parse(deps.secrets.openText(sealed, PURPOSE)) as Pending;
    return p.uid === uid && typeof p.userId === 'string' && p.exp > Date.now() ? p : undefined;
  } catch {
    return undefined; // forged, altered, or sealed by a key this process no longer has
  }
}

export const OTP_FAILURE_TEXT = {
  invalid_code: 'The code is wrong or was already used. Enter the current code from your authenticator app.',
  locked: 'This user is locked after too many failed attempts. Ask an administrator to unlock it.',
  inactive: 'This user cannot sign in.',
} as const;
const OTP_FAILURE_STATUS = { invalid_code: 401, locked: 403, inactive: 403 } as const;

export function registerSecondFactorRoutes(app: Hono<AppEnv>, deps: OidcRouteDeps) {
  const { provider, store } = deps;

  app.post('/ui/login/:uid/otp', async (c) => {
    const uid = c.req.param('uid');
    const d = await interactionOf(provider, c, uid);
    if (!d || d.prompt.name !== 'login') return expiredPage(c);
    const pending = pendingOf(c, deps, uid);
    if (!pending) return c.html(loginPage({ uid, error: 'Your password check has expired. Sign in again.' }), 400);
    const form = await c.req.parseBody().catch(() => undefined);
    const code = typeof form?.code === 'string' ? form.code.replace(/\s/g, '') : '';
    if (!/^\d{6}$/.test(code)) return c.html(otpPage({ uid, error: 'Enter the 6-digit code from your authenticator app.' }), 400);

    const outcome = await checkTotpLogin(store, deps.secrets, deps.instanceId, pending.userId, code);
    if (!outcome.ok) {
      if (outcome.reason === 'invalid_code') return c.html(otpPage({ uid, error: OTP_FAILURE_TEXT.invalid_code }), 401);
      deleteCookie(c, PENDING_COOKIE, { path: cookiePath(uid) });
      return c.html(loginPage({ uid, error: OTP_FAILURE_TEXT[outcome.reason] }), OTP_FAILURE_STATUS[outcome.reason]);
    }
    if (pending.link) {
      const idp = await store.read.idps.get(pending.link.idpId);
      try {
        if (!idp || idp.state !== 'IDP_STATE_ACTIVE') throw new SignInRefused('The identity provider is no longer active. Sign in another way.');
        await linkIdentity(store, idp, pending.link, pending.userId);
      } catch (error) {
        if (error instanceof SignInRefused) return c.html(loginPage({ uid, error: error.message }), 403);
        throw error;
      }
    }
    deleteCookie(c, PENDING_COOKIE, { path: cookiePath(uid) });
    const to = await provider.interactionResult(
      node(c).incoming,
      node(c).outgoing,
      { login: { accountId: pending.userId, amr: ['pwd', 'otp', 'mfa'], remember: true } },
      { mergeWithLastSubmission: false },
    );
    return c.redirect(to, 303);
  });
}
