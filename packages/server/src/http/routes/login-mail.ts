/**
 * The pages a mail's button leads to (ZITADEL's paths; the flows are domain/login/mail-pages.ts):
 * email verification (`/ui/login/mail/verification?userID=…&code=…&orgID=…`, and a new mail on
 * request), user initialisation (`/ui/login/user/init`) and the password reset
 * (`/ui/login/password/init`): the same form, a password chosen with the mail's code.
 * Server-rendered, no JavaScript, like the login page.
 */
import type { Context, Hono } from 'hono';
import { type MailLink, type MailPageDeps, resendVerification, type SetPasswordKind, setPasswordPage, setPasswordWithCode, verifyEmailPage } from '../../domain/login/mail-pages.js';
import { SlidingWindowLimit } from '../../domain/rate-limit.js';
import type { Store } from '../../store/store.js';
import type { AppEnv } from '../env.js';
import { answer, formOf } from './login-flow.js';

/** "Send a new verification mail" per user and window, in this process. */
const RESENDS_PER_WINDOW = 3;
const RESEND_WINDOW_MS = 15 * 60_000;

/** The link's values, from its query or from the form that carries them on. */
const linkIn = (values: (name: string) => string | undefined): MailLink => ({ userId: values('userID') ?? '', code: values('code') ?? '', orgId: values('orgID') ?? '' });
const fromQuery = (c: Context) => linkIn((name) => c.req.query(name));
const fromForm = async (c: Context) => {
  const form = (await formOf(c)) ?? {};
  return { ...linkIn((name) => form[name]), password: form.password ?? '', passwordConfirmation: form.passwordConfirmation ?? '' };
};

export function registerMailPageRoutes(app: Hono<AppEnv>, store: Store, instanceId: string) {
  const deps: MailPageDeps = { store, instanceId, resends: new SlidingWindowLimit(RESENDS_PER_WINDOW, RESEND_WINDOW_MS) };

  app.get('/ui/login/mail/verification', async (c) => answer(c, await verifyEmailPage(deps, fromQuery(c))));
  app.post('/ui/login/mail/verification', async (c) => answer(c, await verifyEmailPage(deps, await fromForm(c))));
  app.post('/ui/login/mail/verification/resend', async (c) => answer(c, await resendVerification(deps, await fromForm(c))));

  const setPassword = (path: string, kind: SetPasswordKind) => {
    app.get(path, async (c) => answer(c, await setPasswordPage(deps, kind, fromQuery(c))));
    app.post(path, async (c) => answer(c, await setPasswordWithCode(deps, kind, await fromForm(c))));
  };
  setPassword('/ui/login/user/init', 'init');
  // ZITADEL's password reset page (the link of the PasswordReset mail).
  setPassword('/ui/login/password/init', 'reset');
}
