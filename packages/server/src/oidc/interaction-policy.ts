/**
 * When the authorization server asks the person to sign in: oidc-provider's own checks (no session,
 * `prompt=login`, `max_age`, `id_token_hint`, …) plus whether the browser's sign-in still stands
 * under the login policy as it is now (domain/login/sign-in-standing.ts): its check lifetimes, and
 * the second factor the policy requires today. They live here, as checks of the `login` prompt,
 * because this is the one place every authorization passes with the browser's session before a code
 * is issued — an application redirecting a signed-in browser never reaches the login pages otherwise.
 *
 * Two reasons, one rule: `check_lifetime` (the whole sign-in again) and `second_factor` (the login
 * leads the session to just the missing step: domain/login/steps.ts `leadToSecondFactor`, which
 * reads the step and the sign-in's time from the prompt's details). With `prompt=none` either is
 * oidc-provider's `interaction_required`.
 */
import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import { SECOND_FACTOR_REASON, type SecondFactorDetails, type SignInStanding, signInStanding } from '../domain/login/sign-in-standing.js';
import type { Store } from '../store/store.js';

const { Check, base } = interactionPolicy;

export const CHECK_LIFETIME_REASON = 'check_lifetime';

export function signInPolicy(store: Store, instanceId: string) {
  // Both checks ask the rule once per authorization request.
  const standings = new WeakMap<KoaContextWithOIDC, Promise<SignInStanding>>();
  const standingOf = (ctx: KoaContextWithOIDC): Promise<SignInStanding> => {
    let standing = standings.get(ctx);
    if (!standing) {
      const { session } = ctx.oidc;
      standing = signInStanding(store.read, instanceId, { userId: session!.accountId!, at: session!.loginTs, amr: session!.amr });
      standings.set(ctx, standing);
    }
    return standing;
  };
  /** No session: oidc-provider's `no_session` asks already. Just signed in: the login applied the same rule. */
  const judged = (ctx: KoaContextWithOIDC) => !!ctx.oidc.session?.accountId && !ctx.oidc.result?.login;

  const policy = base();
  const checks = policy.get('login')!.checks;
  checks.add(
    new Check(CHECK_LIFETIME_REASON, "a check of the last sign-in is older than the login policy's lifetime for it", async (ctx: KoaContextWithOIDC) => {
      if (!judged(ctx)) return Check.NO_NEED_TO_PROMPT;
      const standing = await standingOf(ctx);
      return !standing.stands && standing.lacks === 'sign-in' ? Check.REQUEST_PROMPT : Check.NO_NEED_TO_PROMPT;
    }),
  );
  checks.add(
    new Check(
      SECOND_FACTOR_REASON,
      'the login policy requires a second factor the last sign-in did not give',
      async (ctx: KoaContextWithOIDC) => {
        if (!judged(ctx)) return Check.NO_NEED_TO_PROMPT;
        const standing = await standingOf(ctx);
        return !standing.stands && standing.lacks !== 'sign-in' ? Check.REQUEST_PROMPT : Check.NO_NEED_TO_PROMPT;
      },
      (ctx: KoaContextWithOIDC): SecondFactorDetails => ({ signedInAt: ctx.oidc.session?.loginTs }),
    ),
  );
  return policy;
}
