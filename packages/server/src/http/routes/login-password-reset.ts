/**
 * "Forgot your password?" at the login page (ZITADEL's login offers it unless the login policy of
 * the application's organisation has `hidePasswordReset`): the person enters the login name, the
 * service queues the password-reset mail (domain/users/password.ts), and the page answers the same
 * whether or not such a user exists. The mail's link leads to `/ui/login/password/init`.
 */
import type { Context, Hono } from 'hono';
import { login } from '../../domain/policies/login.js';
import { requestPasswordResetAtLogin } from '../../domain/users/password.js';
import { hasNul } from '../../oidc/nul-guard.js';
import type { AppEnv } from '../env.js';
import { appOf, expiredPage, interactionOf, type OidcRouteDeps } from './login-flow.js';
import { forgotPasswordPage, messagePage } from '../../ui/pages.js';
import { signInLook } from '../../domain/login/page-look.js';

export function registerPasswordResetRoutes(app: Hono<AppEnv>, deps: OidcRouteDeps) {
  const { provider, store } = deps;

  /** The sign-in attempt and its organisation's look, or the page that says why there is no form. */
  async function attempt(c: Context) {
    const uid = c.req.param('uid') ?? '';
    const d = await interactionOf(provider, c, uid);
    if (!d || d.prompt.name !== 'login') return { refused: expiredPage(c) };
    const app = await appOf(store, d);
    const [policy, look] = await Promise.all([login.effective(store.read, deps.instanceId, app?.orgId ?? deps.instanceId), signInLook(store.read, deps.instanceId, app)]);
    if (policy.hidePasswordReset || !policy.allowUsernamePassword) {
      return { refused: c.html(messagePage('Password reset not offered', 'This application\u2019s organisation does not offer a password reset here. Ask an administrator to reset your password.'), 404) };
    }
    return { uid, look };
  }

  app.get('/ui/login/:uid/password/reset', async (c) => {
    const a = await attempt(c);
    if ('refused' in a) return a.refused;
    return c.html(forgotPasswordPage({ uid: a.uid, look: a.look }));
  });

  app.post('/ui/login/:uid/password/reset', async (c) => {
    const a = await attempt(c);
    if ('refused' in a) return a.refused;
    const form = (await c.req.parseBody().catch(() => undefined)) ?? {};
    const loginName = typeof form.loginName === 'string' ? form.loginName.trim() : '';
    if (!loginName || hasNul(loginName)) return c.html(forgotPasswordPage({ uid: a.uid, look: a.look, error: 'Enter your login name.' }), 400);
    await requestPasswordResetAtLogin(store, deps.instanceId, loginName);
    return c.html(forgotPasswordPage({ uid: a.uid, look: a.look, sent: true }));
  });
}
