/**
 * Self-registration during a sign-in (ZITADEL's register page): `/ui/login/{uid}/register` shows the
 * form when the login policies allow it (domain/login/registration.ts), and refuses with a page that
 * says what to do otherwise (the login page then offers no link either). An accepted form is
 * answered "check your inbox" whether the address was new or not (the mail says which); the person
 * signs in once the address is confirmed. Too many accepted forms from one client address: 429 with
 * a page that says when to try again. The rules are the domain's.
 */
import type { Context, Hono } from 'hono';
import { passwordRulesInWords, registerHuman, RegistrationRefused, registrationTarget } from '../../domain/login/registration.js';
import { clientAddress } from '../client-address.js';
import { signInLook } from '../../domain/login/page-look.js';
import { loginLanguage, loginPageTexts } from '../../domain/texts/login-texts.js';
import { requestedOrg } from '../../oidc/scopes.js';
import { registerPage, registrationClosedPage, registrationLimitedPage, registrationSentPage, type RegisterPageView } from '../../ui/register-pages.js';
import type { AppEnv } from '../env.js';
import { appOf, expiredPage, interactionOf, type Details, type OidcRouteDeps } from './login-flow.js';

const field = (form: Record<string, unknown>, name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');

export function registerRegistrationRoutes(app: Hono<AppEnv>, deps: OidcRouteDeps) {
  const { provider, store } = deps;

  /** The attempt, where registering would put the person, and how its pages look and read. */
  async function context(c: Context) {
    const d = await interactionOf(provider, c, c.req.param('uid') ?? '');
    if (!d || d.prompt.name !== 'login') return undefined;
    const signInApp = await appOf(store, d);
    const place = { app: signInApp, requested: requestedOrg(String(d.params.scope ?? '')) };
    const target = await registrationTarget(store.read, deps.instanceId, place.app, place.requested);
    const [look, texts, passwordRules] = await Promise.all([
      signInLook(store.read, deps.instanceId, signInApp),
      loginPageTexts(store.read, deps.instanceId, target.orgId ?? signInApp?.orgId ?? deps.instanceId, loginLanguage(d.params.ui_locales)),
      target.orgId ? passwordRulesInWords(store.read, deps.instanceId, target.orgId) : undefined,
    ]);
    const page = (view: Omit<RegisterPageView, 'uid' | 'look' | 'texts' | 'appName' | 'passwordRules'>) =>
      registerPage({ ...view, uid: d.uid, look, texts, appName: signInApp?.name, passwordRules });
    return { d, place, target, look, page };
  }

  const closed = (c: Context, d: Details, look: Awaited<ReturnType<typeof signInLook>>) => c.html(registrationClosedPage({ uid: d.uid, look }), 403);

  app.get('/ui/login/:uid/register', async (c) => {
    const s = await context(c);
    if (!s) return expiredPage(c);
    if (!s.target.allowed || !s.target.orgId) return closed(c, s.d, s.look);
    return c.html(s.page({}));
  });

  app.post('/ui/login/:uid/register', async (c) => {
    const s = await context(c);
    if (!s) return expiredPage(c);
    if (!s.target.allowed || !s.target.orgId) return closed(c, s.d, s.look);
    const form = (await c.req.parseBody().catch(() => undefined)) ?? {};
    const entered = { firstName: field(form, 'firstName'), lastName: field(form, 'lastName'), email: field(form, 'email') };
    const password = field(form, 'password');
    if (password !== field(form, 'passwordConfirmation')) {
      return c.html(s.page({ ...entered, error: 'The two passwords differ. Enter the same password twice.', errorField: 'password' }), 400);
    }
    let outcome;
    try {
      const admit = () => deps.registrations.take(clientAddress(c, deps.trustProxy));
      outcome = await registerHuman(store, deps.secrets, deps.instanceId, s.place, { ...entered, password }, admit);
    } catch (error) {
      if (!(error instanceof RegistrationRefused)) throw error;
      switch (error.reason) {
        case 'not_allowed':
          return closed(c, s.d, s.look);
        case 'rate_limited':
          c.header('Retry-After', String(error.retryAfterSeconds));
          return c.html(registrationLimitedPage({ uid: s.d.uid, retryAfterSeconds: error.retryAfterSeconds!, look: s.look }), 429);
        case 'weak_password':
          return c.html(s.page({ ...entered, error: `The password does not fit the rules: ${error.message}`, errorField: 'password' }), 400);
        default:
          return c.html(s.page({ ...entered, error: error.message, errorField: error.field }), 400);
      }
    }
    // The log tells the operator which it was; the person is answered the same.
    const logged = outcome.existing ? { existingUserId: outcome.userId, mailed: outcome.mailed ?? 'nothing' } : { userId: outcome.userId };
    c.get('logger')?.info(outcome.existing ? 'registration for an existing account' : 'user registered at sign-in', { requestId: c.get('requestId'), orgId: s.target.orgId, ...logged });
    return c.html(registrationSentPage({ uid: s.d.uid, email: entered.email.trim(), look: s.look }));
  });
}
