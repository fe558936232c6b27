/**
 * Self-registration during a sign-in (ZITADEL's register page): `/ui/login/{uid}/register` shows the
 * form when the organisation's login policy has `allowRegister`, and refuses with a page that says
 * what to do otherwise (the login page then offers no link either). A registered person goes on
 * like one who gave a right password (login-steps.ts `afterPassword`: the steps a login policy asks
 * after the password, then back into the authorization), so the application that asked gets its code.
 * The rules are the domain's (domain/login/registration.ts).
 */
import type { Context, Hono } from 'hono';
import { passwordRulesInWords, registerHuman, RegistrationRefused, registrationTarget } from '../../domain/login/registration.js';
import { signInLook } from '../../domain/login/page-look.js';
import { loginLanguage, loginPageTexts } from '../../domain/texts/login-texts.js';
import { requestedOrg } from '../../oidc/scopes.js';
import { registerPage, registrationClosedPage, type RegisterPageView } from '../../ui/register-pages.js';
import type { AppEnv } from '../env.js';
import { appOf, expiredPage, interactionOf, type Details, type OidcRouteDeps } from './login-flow.js';
import { afterPassword } from './login-steps.js';

const field = (form: Record<string, unknown>, name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');

export function registerRegistrationRoutes(app: Hono<AppEnv>, deps: OidcRouteDeps) {
  const { provider, store } = deps;

  /** The attempt, where registering would put the person, and how its pages look and read. */
  async function context(c: Context) {
    const d = await interactionOf(provider, c, c.req.param('uid') ?? '');
    if (!d || d.prompt.name !== 'login') return undefined;
    const signInApp = await appOf(store, d);
    const target = await registrationTarget(store.read, deps.instanceId, signInApp, requestedOrg(String(d.params.scope ?? '')));
    const [look, texts, passwordRules] = await Promise.all([
      signInLook(store.read, deps.instanceId, signInApp),
      loginPageTexts(store.read, deps.instanceId, target.orgId ?? signInApp?.orgId ?? deps.instanceId, loginLanguage(d.params.ui_locales)),
      target.orgId ? passwordRulesInWords(store.read, deps.instanceId, target.orgId) : undefined,
    ]);
    const page = (view: Omit<RegisterPageView, 'uid' | 'look' | 'texts' | 'appName' | 'passwordRules'>) =>
      registerPage({ ...view, uid: d.uid, look, texts, appName: signInApp?.name, passwordRules });
    return { d, target, look, page };
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
    let userId: string;
    try {
      ({ userId } = await registerHuman(store, deps.secrets, deps.instanceId, s.target.orgId, { ...entered, password }));
    } catch (error) {
      if (!(error instanceof RegistrationRefused)) throw error;
      switch (error.reason) {
        case 'not_allowed':
          return closed(c, s.d, s.look);
        case 'email_taken':
          return c.html(s.page({ ...entered, error: error.message, errorField: 'email', signInInstead: true }), 409);
        case 'weak_password':
          return c.html(s.page({ ...entered, error: `The password does not fit the rules: ${error.message}`, errorField: 'password' }), 400);
        default:
          return c.html(s.page({ ...entered, error: error.message, errorField: error.field }), 400);
      }
    }
    c.get('logger')?.info('user registered at sign-in', { requestId: c.get('requestId'), userId, orgId: s.target.orgId });
    // The person chose the password just now: as good as a right one.
    return afterPassword(c, deps, s.d.uid, { userId, otpRequired: false, passwordChangeRequired: false });
  });
}
