/**
 * When the authorization server asks the person to sign in: oidc-provider's own checks (no session,
 * `prompt=login`, `max_age`, `id_token_hint`, …) plus the login policy's check lifetimes
 * (domain/login/check-lifetimes.ts), which a session of this browser must be within to be used
 * without asking. They live here, as a check of the `login` prompt, because this is the one place
 * every authorization passes with the browser's session before a code is issued — an application
 * redirecting a signed-in browser never reaches the login pages otherwise.
 */
import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import { lastSignInOutlived } from '../domain/login/check-lifetimes.js';
import type { Store } from '../store/store.js';

const { Check, base } = interactionPolicy;

export const CHECK_LIFETIME_REASON = 'check_lifetime';

export function signInPolicy(store: Store, instanceId: string) {
  const policy = base();
  policy.get('login')!.checks.add(
    new Check(CHECK_LIFETIME_REASON, "a check of the last sign-in is older than the login policy's lifetime for it", async (ctx: KoaContextWithOIDC) => {
      const { session, result } = ctx.oidc;
      // No session: oidc-provider's `no_session` asks already. Just signed in: that sign-in is fresh.
      if (!session?.accountId || result?.login) return Check.NO_NEED_TO_PROMPT;
      const outlived = await lastSignInOutlived(store.read, instanceId, { userId: session.accountId, at: session.loginTs, amr: session.amr });
      return outlived ? Check.REQUEST_PROMPT : Check.NO_NEED_TO_PROMPT;
    }),
  );
  return policy;
}
