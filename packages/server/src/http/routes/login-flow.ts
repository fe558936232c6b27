/**
 * What every login route shares (oidc-ui.ts, login-*.ts): their dependencies, the browser's sign-in
 * attempt read from oidc-provider, the form as strings, and `answer`, which applies a login flow's
 * outcome (domain/login/flow.ts) to the response — a page rendered by ui/, a redirect, a refusal,
 * the sign-in handed to oidc-provider; cookies set or dropped; a log line. A route reads the
 * request, calls one flow and answers: the flows live in the domain.
 */
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type Provider from 'oidc-provider';
import { EXPIRED, type LoginDeps, type LoginOutcome, type SignInAttempt } from '../../domain/login/flow.js';
import type { AccessTokenReader } from '../../oidc/access-tokens.js';
import { requestedOrg } from '../../oidc/scopes.js';
import { renderLoginPage } from '../../ui/login-pages.js';
import type { AppEnv } from '../env.js';

export interface OidcRouteDeps extends LoginDeps {
  provider: Provider;
  readAccessToken: AccessTokenReader;
  /** Behind the TLS-terminating proxy: a client's address is the last X-Forwarded-For entry (client-address.ts). */
  trustProxy?: boolean;
}

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

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** An interaction as the login flows read it. */
export function attemptFrom(d: Details): SignInAttempt {
  const session = d.session ? { accountId: d.session.accountId, amr: d.session.amr } : undefined;
  return {
    uid: d.uid,
    clientId: text(d.params.client_id) ?? '',
    uiLocales: text(d.params.ui_locales),
    loginHint: String(d.params.login_hint ?? ''),
    requestedOrg: requestedOrg(String(d.params.scope ?? '')),
    prompt: { name: d.prompt.name, reasons: d.prompt.reasons, details: d.prompt.details as Record<string, unknown> },
    ...(session ? { session } : {}),
  };
}

/** The sign-in attempt of the route's `:uid` in this browser when it asks for a sign-in (prompt `login`). */
async function loginAttempt(deps: OidcRouteDeps, c: Context): Promise<SignInAttempt | undefined> {
  const d = await interactionOf(deps.provider, c, c.req.param('uid') ?? '');
  return d && d.prompt.name === 'login' ? attemptFrom(d) : undefined;
}

/** The posted form's text fields; undefined when the body does not parse (the user's mistake, not the server's). */
export async function formOf(c: Context): Promise<Record<string, string> | undefined> {
  const body = await c.req.parseBody().catch(() => undefined);
  if (!body) return undefined;
  return Object.fromEntries(Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/**
 * Applies a login flow's outcome to the response. `deps` (the sign-in's routes have them) sets
 * cookies on the issuer's scheme and hands a sign-in to oidc-provider; the mail's pages need neither.
 */
export async function answer(c: Context<AppEnv>, outcome: LoginOutcome, deps?: OidcRouteDeps): Promise<Response> {
  const withDeps = () => deps ?? fail("a login outcome with cookies or a sign-in needs the sign-in routes' dependencies");
  for (const cookie of outcome.cookies ?? []) {
    if ('remove' in cookie) deleteCookie(c, cookie.name, { path: cookie.path });
    else setCookie(c, cookie.name, cookie.value, { path: cookie.path, httpOnly: true, sameSite: 'Lax', secure: withDeps().issuer.startsWith('https:'), maxAge: cookie.maxAgeSeconds });
  }
  if (outcome.log) c.get('logger')?.[outcome.log.level](outcome.log.message, { requestId: c.get('requestId'), ...outcome.log.fields });
  if ('redirect' in outcome) return c.redirect(outcome.redirect, outcome.status);
  if ('signIn' in outcome) {
    const { userId, amr, signedInAt } = outcome.signIn;
    const login = { accountId: userId, amr, remember: true, ...(signedInAt !== undefined ? { ts: signedInAt } : {}) };
    const to = await withDeps().provider.interactionResult(node(c).incoming, node(c).outgoing, { login }, { mergeWithLastSubmission: false });
    return c.redirect(to, 303);
  }
  if ('refusal' in outcome) return c.html(await renderLoginPage({ name: 'refusal', ...outcome.refusal }), outcome.status);
  if (outcome.retryAfterSeconds !== undefined) c.header('Retry-After', String(outcome.retryAfterSeconds));
  return c.html(await renderLoginPage(outcome.page), (outcome.status ?? 200) as ContentfulStatusCode);
}

const fail = (message: string): never => {
  throw new Error(message);
};

/** A route of a sign-in attempt's step: the flow's outcome for the attempt, or the expired page without one. */
export const forAttempt =
  (deps: OidcRouteDeps, flow: (attempt: SignInAttempt, c: Context<AppEnv>) => Promise<LoginOutcome>) =>
  async (c: Context<AppEnv>): Promise<Response> => {
    const attempt = await loginAttempt(deps, c);
    return answer(c, attempt ? await flow(attempt, c) : EXPIRED, deps);
  };
