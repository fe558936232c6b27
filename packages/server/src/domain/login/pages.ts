/**
 * Which page a step of the login shows, and with what: the domain's answer (a `{ page }` outcome,
 * flow.ts), which ui/login-pages.ts renders. Only data lives here; every word of markup is ui/'s.
 * The organisation's look (page-look.ts) and words (texts/) are chosen by the flow, so a page's
 * renderer reads nothing.
 */
import type { LoginPageTexts } from '../texts/login-texts.js';
import type { SecondFactorTexts } from '../texts/mfa-texts.js';
import type { PageLook } from './page-look.js';

/** The login form (oidc-ui.ts's page; the form again, with an error, after a refused password). */
export interface LoginFormView {
  uid: string;
  loginName?: string;
  error?: string;
  /** The application the user signs in to. */
  appName?: string;
  /** Identity providers offered beside the password form (domain/federation/). */
  providers?: { id: string; name: string }[];
  /** The login policy's `allowUsernamePassword` (default true). */
  passwordForm?: boolean;
  /** Offer "Forgot your password?" (the login policy's `hidePasswordReset` off). */
  passwordReset?: boolean;
  /** Offer self-registration (the login policy's `allowRegister`; register-form.ts). */
  register?: boolean;
  /** The page's strings (the organisation's login texts; domain/texts/login-texts.ts). */
  texts?: LoginPageTexts;
  look?: PageLook;
}

/** ZITADEL's "external user not found": link the provider's identity to an existing account. `state` is the sealed outcome. */
export interface LinkView {
  uid: string;
  state: string;
  providerName: string;
  externalUserName: string;
  reason: 'no-auto-register' | 'user-name-taken';
  loginName?: string;
  error?: string;
  look?: PageLook;
}

/** Setting up an authenticator app: the `otpauth://` URI (drawn as a QR code by ui/) and its secret. */
export interface OtpSetupStepView {
  uid: string;
  /** The `otpauth://` URI the QR code shows. */
  url: string;
  /** The secret in base32, for typing it into the app. */
  secret: string;
  /** Forced by the login policy (no skip button). */
  required: boolean;
  error?: string;
  texts?: SecondFactorTexts;
  look?: PageLook;
}

export interface RegisterPageView {
  uid: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  /** Shown above the form, with `errorField` the input it is about (focused, marked invalid). */
  error?: string;
  errorField?: 'firstName' | 'lastName' | 'email' | 'password';
  /** The application the user signs in to. */
  appName?: string;
  /** What the organisation's complexity policy asks of a password, in words. */
  passwordRules?: string;
  texts?: LoginPageTexts;
  look?: PageLook;
}

/** Every page of the login, by name, with what it shows. */
export interface LoginPages {
  'sign-in': LoginFormView;
  /** A sign-in attempt this browser no longer has (ui/start-pages.ts). */
  'sign-in-expired': object;
  link: LinkView;
  /** A sign-in through an identity provider that cannot go on: why, and the way back. */
  refusal: { message: string; backTo?: string };
  otp: { uid: string; error?: string; look?: PageLook; texts?: SecondFactorTexts };
  'otp-setup': OtpSetupStepView;
  /** A second factor is forced and none can be set up (ZITADEL's LOGIN-5Hm8s). */
  'second-factor-refused': { uid: string; look?: PageLook };
  'new-password': { uid: string; error?: string; look?: PageLook };
  'forgot-password': { uid: string; loginName?: string; error?: string; sent?: boolean; look?: PageLook };
  /** Email verification: the code's form (with an error, a notice, the "send a new mail" button). */
  verification: { userId: string; orgId?: string; error?: string; notice?: string; resend?: boolean; look?: PageLook };
  /** A password chosen with a mailed code: the first one (initialisation) or a new one (`reset`). */
  'set-password': { userId: string; code: string; orgId?: string; error?: string; reset?: boolean; look?: PageLook };
  /** A finished step (or nothing left to do): what happened and what next; `continueTo` leads on. */
  done: { title: string; text: string; next: string; look?: PageLook; continueTo?: string };
  message: { title: string; text: string; look?: PageLook };
  register: RegisterPageView;
  'registration-closed': { uid?: string; look?: PageLook };
  'registration-sent': { uid: string; email: string; look?: PageLook };
  'registration-limited': { uid: string; retryAfterSeconds: number; look?: PageLook };
}

export type LoginPage = { [K in keyof LoginPages]: { name: K } & LoginPages[K] }[keyof LoginPages];
