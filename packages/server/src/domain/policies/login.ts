/**
 * The login policy (ZITADEL's). What the login page does with it (http/routes/oidc-ui.ts), with the
 * effective policy of the application's organisation:
 * - `allowUsernamePassword: false` hides the password form and refuses a posted one;
 * - `allowExternalIdp: false` hides the identity providers; a non-empty `idps` list offers only those;
 * - `ignoreUnknownUsernames` changes nothing: the page never tells an unknown name from a wrong
 *   password (and "Forgot your password?" answers alike for an unknown name);
 * - `hidePasswordReset` hides "Forgot your password?" (http/routes/login-password-reset.ts);
 * - `defaultRedirectUri` is where the pages a mail leads to continue once done (email verified,
 *   password set or reset), as ZITADEL's login does when no application is waiting;
 * - `allowRegister` offers self-registration (domain/login/registration.ts);
 * - the check lifetimes decide when a browser's session must sign in again
 *   (domain/login/check-lifetimes.ts);
 * - `forceMfa`, `forceMfaLocalOnly`, `mfaInitSkipLifetime` and `secondFactors` decide the second
 *   factor after the first (domain/login/second-factor.ts);
 * - `passwordlessType` and the multi-factor list are stored, shown, exported and imported; the
 *   login page has no passkeys.
 * Until the instance's default is changed it is ZITADEL's built-in one.
 */
import { LoginPolicy as LoginDocument } from '../transfer/document.js';
import { parseWith, policyOperations } from './policy.js';

export interface LoginPolicyIdp {
  idpId: string;
  ownerType: string;
}

export interface Login {
  allowUsernamePassword: boolean;
  allowRegister: boolean;
  allowExternalIdp: boolean;
  forceMfa: boolean;
  forceMfaLocalOnly: boolean;
  passwordlessType: string;
  hidePasswordReset: boolean;
  ignoreUnknownUsernames: boolean;
  allowDomainDiscovery: boolean;
  disableLoginWithEmail: boolean;
  disableLoginWithPhone: boolean;
  defaultRedirectUri: string;
  passwordCheckLifetime: string;
  externalLoginCheckLifetime: string;
  mfaInitSkipLifetime: string;
  secondFactorCheckLifetime: string;
  multiFactorCheckLifetime: string;
  secondFactors: string[];
  multiFactors: string[];
  idps: LoginPolicyIdp[];
}

const BUILT_IN: Login = {
  allowUsernamePassword: true,
  allowRegister: true,
  allowExternalIdp: true,
  forceMfa: false,
  forceMfaLocalOnly: false,
  passwordlessType: 'PASSWORDLESS_TYPE_ALLOWED',
  hidePasswordReset: false,
  ignoreUnknownUsernames: false,
  allowDomainDiscovery: false,
  disableLoginWithEmail: false,
  disableLoginWithPhone: false,
  defaultRedirectUri: '',
  passwordCheckLifetime: '864000s',
  externalLoginCheckLifetime: '864000s',
  mfaInitSkipLifetime: '2592000s',
  secondFactorCheckLifetime: '64800s',
  multiFactorCheckLifetime: '43200s',
  secondFactors: ['SECOND_FACTOR_TYPE_OTP', 'SECOND_FACTOR_TYPE_U2F'],
  multiFactors: ['MULTI_FACTOR_TYPE_U2F_WITH_VERIFICATION'],
  idps: [],
};

const FLAGS = [
  'allowUsernamePassword',
  'allowRegister',
  'allowExternalIdp',
  'forceMfa',
  'forceMfaLocalOnly',
  'hidePasswordReset',
  'ignoreUnknownUsernames',
  'allowDomainDiscovery',
  'disableLoginWithEmail',
  'disableLoginWithPhone',
] as const;
const LIFETIMES = ['passwordCheckLifetime', 'externalLoginCheckLifetime', 'mfaInitSkipLifetime', 'secondFactorCheckLifetime', 'multiFactorCheckLifetime'] as const;

export const login = policyOperations({
  kind: 'login',
  eventName: 'login',
  label: 'login policy',
  builtIn: BUILT_IN,
  parse: (input: unknown): Login => {
    const p = parseWith(LoginDocument, input) as Partial<Login>;
    return {
      ...(Object.fromEntries(FLAGS.map((f) => [f, Boolean(p[f])])) as Pick<Login, (typeof FLAGS)[number]>),
      passwordlessType: p.passwordlessType ?? 'PASSWORDLESS_TYPE_NOT_ALLOWED',
      defaultRedirectUri: p.defaultRedirectUri ?? '',
      // A lifetime left out is ZITADEL's default, as its import fills it in.
      ...(Object.fromEntries(LIFETIMES.map((f) => [f, p[f] ?? BUILT_IN[f]])) as Pick<Login, (typeof LIFETIMES)[number]>),
      secondFactors: (p.secondFactors ?? []).filter((f) => f !== 'SECOND_FACTOR_TYPE_UNSPECIFIED'),
      multiFactors: (p.multiFactors ?? []).filter((f) => f !== 'MULTI_FACTOR_TYPE_UNSPECIFIED'),
      idps: (p.idps ?? []).map((i) => ({ idpId: i.idpId, ownerType: i.ownerType })),
    };
  },
  show: (p: Login) => ({ ...p }),
  documentField: 'loginPolicy',
  importType: 'login_policy',
  toDocument: (p: Login) => ({ ...p }),
});
