/**
 * The pages of the login UI and of the authorization server, rendered on the server: the login's
 * (what each shows is domain/login/pages.ts; login-pages.ts picks the function) and oidc-provider's
 * hooks' (oidc/provider.ts). The frame and the styling are ui/layout.ts.
 */
import type { PageLook } from '../domain/login/page-look.js';
import type { LinkView, LoginFormView, LoginPages } from '../domain/login/pages.js';
import { BUILT_IN_LOGIN_PAGE_TEXTS } from '../domain/texts/login-texts.js';
import { BUILT_IN_SECOND_FACTOR_TEXTS } from '../domain/texts/mfa-texts.js';
import { escapeHtml, layout } from './layout.js';

export type { PageLook };

export function loginPage({
  uid,
  loginName = '',
  error,
  appName,
  providers = [],
  passwordForm = true,
  passwordReset = false,
  register = false,
  look,
  texts = BUILT_IN_LOGIN_PAGE_TEXTS,
}: LoginFormView): string {
  const alert = error ? `<p class="error" role="alert" id="login-error">${escapeHtml(error)}</p>` : '';
  // Which application the user signs in to, so a phishing page is easier to tell apart.
  const to = appName ? `<p class="app">to continue to <strong id="app-name">${escapeHtml(appName)}</strong></p>` : '';
  // After the password form, so that its button stays the form's first (Enter submits it).
  const external = providers.length
    ? `<form method="post" action="/ui/login/${encodeURIComponent(uid)}/idp" class="providers"><p>${passwordForm ? escapeHtml(texts.externalUserDescription) : 'Sign in with'}</p>${providers
        .map((p) => `<button type="submit" name="idpId" value="${escapeHtml(p.id)}" class="provider">${escapeHtml(p.name)}</button>`)
        .join('')}</form>`
    : '';
  const form = passwordForm
    ? `<form method="post" action="/ui/login/${encodeURIComponent(uid)}">
<label for="loginName">${escapeHtml(texts.loginNameLabel)}</label><input id="loginName" name="loginName" autocomplete="username" required value="${escapeHtml(loginName)}"${loginName ? '' : ' autofocus'}>
<label for="password">${escapeHtml(texts.passwordLabel)}</label><input id="password" name="password" type="password" autocomplete="current-password" required${loginName ? ' autofocus' : ''}>
<button type="submit">${escapeHtml(texts.nextButtonText)}</button>
</form>${passwordReset ? `<p><a id="forgot-password" href="/ui/login/${encodeURIComponent(uid)}/password/reset">${escapeHtml(texts.resetLinkText)}</a></p>` : ''}`
    : providers.length
      ? ''
      : '<p id="no-method">No way to sign in is allowed for this application. Ask its administrator to allow passwords or an identity provider in the login policy.</p>';
  return layout(
    // The built-in title reads on into the application's name; a custom one stands before it.
    appName ? (texts.title === BUILT_IN_LOGIN_PAGE_TEXTS.title ? `Sign in to ${appName}` : `${texts.title} – ${appName}`) : texts.title,
    `<h1>${escapeHtml(texts.title)}</h1>${to}${alert}
${form}${external}${register ? `<p class="register">No account yet? <a id="register" href="/ui/login/${encodeURIComponent(uid)}/register">${escapeHtml(texts.registerButtonText)}</a></p>` : ''}`,
    look,
  );
}

/**
 * ZITADEL's "external user not found" option: the identity a provider vouched for has no account
 * here yet; the person signs in with an existing account's password to link the two. `state` is the
 * sealed identity (domain/federation/browser-state.ts).
 */
export function linkPage(view: LinkView): string {
  const alert = view.error ? `<p class="error" role="alert" id="login-error">${escapeHtml(view.error)}</p>` : '';
  const why =
    view.reason === 'user-name-taken'
      ? `An account named <strong>${escapeHtml(view.externalUserName)}</strong> already exists here. If it is yours, sign in with its password to link it to your ${escapeHtml(view.providerName)} identity.`
      : `Your ${escapeHtml(view.providerName)} identity <strong id="external-user">${escapeHtml(view.externalUserName)}</strong> is not linked to an account here yet. Sign in with your existing account to link them; afterwards ${escapeHtml(view.providerName)} signs you in directly.`;
  return layout(
    'Link your account',
    `<h1>Link your account</h1><p id="link-reason">${why}</p>${alert}
<form method="post" action="/ui/login/${encodeURIComponent(view.uid)}/idp/link">
<input type="hidden" name="state" value="${escapeHtml(view.state)}">
<label for="loginName">Login name</label><input id="loginName" name="loginName" autocomplete="username" required value="${escapeHtml(view.loginName ?? '')}" autofocus>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in and link</button>
</form>
<p><a href="/ui/login/${encodeURIComponent(view.uid)}">Back to the sign-in page</a> (to use another account or method).</p>`,
    view.look,
  );
}

/** A sign-in through a provider that failed: what happened and how to go on. */
export function federationErrorPage(message: string, backTo?: string): string {
  const back = backTo
    ? `<p><a id="back" href="${escapeHtml(backTo)}">Back to the sign-in page</a> to try again or sign in another way.</p>`
    : '<p>Go back to the application and start signing in again.</p>';
  return layout('Sign-in failed', `<h1>Signing in with the provider did not work</h1><p class="error" role="alert" id="login-error">${escapeHtml(message)}</p>${back}`);
}

/** What a person can do about each OAuth error the authorization server shows in the browser. */
const NEXT_STEP: Record<string, string> = {
  invalid_client:
    'The application that sent you here is not registered with this service, or it is deactivated. Go back to the application and tell its administrator: its client id must name an active OIDC application.',
  invalid_redirect_uri: 'The application asked to send you back to an address it has not registered. Tell its administrator to add that redirect URI to the application.',
  unauthorized_client: 'The application is not allowed to sign you in this way. Tell its administrator to check its grant and response types.',
  invalid_scope: 'The application asked for something this service does not offer. Tell its administrator which scopes it requested.',
  invalid_request: 'The sign-in request is incomplete or malformed. Go back to the application and start signing in again.',
};
const DEFAULT_NEXT_STEP = 'Go back to the application and start signing in again. If this happens again, tell the application’s administrator the error below.';

/**
 * oidc-provider's error page (renderError), in the login's style: the error, and what to do next
 * (`nextStep` when the caller knows better than the error code, e.g. why a registered redirect URI is refused).
 */
export function errorPage(error: string, description?: string, nextStep?: string): string {
  const next = nextStep ?? NEXT_STEP[error] ?? DEFAULT_NEXT_STEP;
  return layout(
    'Sign-in error',
    `<h1>Signing in did not work</h1><p id="next-step">${escapeHtml(next)}</p>
<p class="error" role="alert"><code id="error-code">${escapeHtml(error)}</code>${description ? `: <span id="error-description">${escapeHtml(description)}</span>` : ''}</p>`,
  );
}

export function messagePage(title: string, text: string, look?: PageLook): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1><p id="message">${escapeHtml(text)}</p>`, look);
}

/**
 * The sign-out confirmation of RP-initiated logout. `form` is oidc-provider's hidden form
 * (`id="op.logoutForm"`, carrying the xsrf token); the buttons submit it, so no JavaScript is needed.
 */
export function logoutPage(form: string, host: string): string {
  return layout(
    'Sign out',
    `<h1>Sign out</h1><p>Do you want to sign out from ${escapeHtml(host)}?</p>${form}
<button autofocus type="submit" form="op.logoutForm" name="logout" value="yes">Yes, sign me out</button>
<button type="submit" form="op.logoutForm">No, stay signed in</button>`,
  );
}

/**
 * A finished step (email verified, password set): what happened and what to do next. With
 * `continueTo` (the login policy's `defaultRedirectUri`: there is no application waiting, as
 * in ZITADEL's login) a button leads on.
 */
export function donePage(title: string, text: string, next: string, options: { look?: PageLook; continueTo?: string } = {}): string {
  const onward =
    options.continueTo && /^https?:\/\//i.test(options.continueTo) ? `<p><a id="continue" class="button" href="${escapeHtml(options.continueTo)}">Continue</a></p>` : `<p>${escapeHtml(next)}</p>`;
  return layout(title, `<h1>${escapeHtml(title)}</h1><p id="done">${escapeHtml(text)}</p>${onward}`, options.look);
}

/** The step for a user with an authenticator app (domain/login/steps.ts). */
export function otpPage(view: LoginPages['otp']): string {
  const alert = view.error ? `<p class="error" role="alert" id="login-error">${escapeHtml(view.error)}</p>` : '';
  const texts = view.texts ?? BUILT_IN_SECOND_FACTOR_TEXTS;
  return layout(
    'Enter your code',
    `<h1>${escapeHtml(texts.verifyTitle)}</h1><p>${escapeHtml(texts.verifyDescription)}</p>${alert}
<form method="post" action="/ui/login/${encodeURIComponent(view.uid)}/otp">
<label for="code">${escapeHtml(texts.verifyCodeLabel)}</label><input id="code" name="code" inputmode="numeric" pattern="[0-9 ]{6,7}" autocomplete="one-time-code" required autofocus>
<button type="submit">${escapeHtml(texts.verifyButtonText)}</button>
</form>
<p><a href="/ui/login/${encodeURIComponent(view.uid)}">Back to the sign-in page</a> (to use another account). Lost your phone? Ask an administrator to remove the authenticator from your user.</p>`,
    view.look,
  );
}

/** The step for a user who must choose a new password (domain/login/steps.ts). */
export function newPasswordPage(view: LoginPages['new-password']): string {
  const alert = view.error ? `<p class="error" role="alert" id="login-error">${escapeHtml(view.error)}</p>` : '';
  return layout(
    'Choose a new password',
    `<h1>Choose a new password</h1><p>Your password was set by an administrator or has to be renewed. Choose a new one to continue; you will sign in with it from now on.</p>${alert}
<form method="post" action="/ui/login/${encodeURIComponent(view.uid)}/password">
<label for="password">New password</label><input id="password" name="password" type="password" autocomplete="new-password" required autofocus>
<label for="passwordConfirmation">New password again</label><input id="passwordConfirmation" name="passwordConfirmation" type="password" autocomplete="new-password" required>
<button type="submit">Change password and continue</button>
</form>`,
    view.look,
  );
}

/** Email verification without a code in the link (or after a wrong one): a form for the code. */
export function verificationPage(view: LoginPages['verification']): string {
  const alert = view.error ? `<p class="error" role="alert" id="page-error">${escapeHtml(view.error)}</p>` : '';
  const notice = view.notice ? `<p role="status" id="page-notice">${escapeHtml(view.notice)}</p>` : '';
  // A used, expired or lost code: a new mail is the way on (ZITADEL's page offers it too).
  const resend = view.resend
    ? `<form method="post" action="/ui/login/mail/verification/resend" class="providers"><p>No mail, or its code no longer works?</p>
<input type="hidden" name="userID" value="${escapeHtml(view.userId)}"><input type="hidden" name="orgID" value="${escapeHtml(view.orgId ?? '')}">
<button type="submit" id="resend" class="provider">Send a new verification mail</button></form>`
    : '';
  return layout(
    'Verify your email',
    `<h1>Verify your email</h1><p>Enter the code from the verification mail.</p>${notice}${alert}
<form method="post" action="/ui/login/mail/verification">
<input type="hidden" name="userID" value="${escapeHtml(view.userId)}"><input type="hidden" name="orgID" value="${escapeHtml(view.orgId ?? '')}">
<label for="code">Code</label><input id="code" name="code" autocomplete="one-time-code" required autofocus>
<button type="submit">Verify</button>
</form>${resend}`,
    view.look,
  );
}

/** ZITADEL's user initialisation: choose a password with the init mail's code. */
export function initPage(view: LoginPages['set-password']): string {
  const alert = view.error ? `<p class="error" role="alert" id="page-error">${escapeHtml(view.error)}</p>` : '';
  // The same form sets the first password (ZITADEL's user initialisation) and a new one after a reset mail.
  const [title, lead, action, button] = view.reset
    ? ['Reset your password', 'Choose a new password to sign in with; the old one stops working.', '/ui/login/password/init', 'Reset password']
    : ['Set your password', 'Choose the password you will sign in with.', '/ui/login/user/init', 'Set password'];
  return layout(
    title,
    `<h1>${title}</h1><p>${lead}</p>${alert}
<form method="post" action="${action}">
<input type="hidden" name="userID" value="${escapeHtml(view.userId)}"><input type="hidden" name="orgID" value="${escapeHtml(view.orgId ?? '')}">
<label for="code">Code from the mail</label><input id="code" name="code" required value="${escapeHtml(view.code)}">
<label for="password">New password</label><input id="password" name="password" type="password" autocomplete="new-password" required autofocus>
<label for="passwordConfirmation">Repeat the password</label><input id="passwordConfirmation" name="passwordConfirmation" type="password" autocomplete="new-password" required>
<button type="submit">${button}</button>
</form>`,
    view.look,
  );
}

/** "Forgot your password?": the login name to send the reset mail for (domain/login/password-reset-form.ts). */
export function forgotPasswordPage(view: LoginPages['forgot-password']): string {
  const back = `<p><a id="back" href="/ui/login/${encodeURIComponent(view.uid)}">Back to the sign-in page</a></p>`;
  if (view.sent) {
    return layout(
      'Check your mail',
      `<h1>Check your mail</h1><p id="reset-sent">If an account with this login name exists and has an email address, a mail with a link to choose a new password is on its way. The link works for one hour.</p>${back}`,
      view.look,
    );
  }
  const alert = view.error ? `<p class="error" role="alert" id="page-error">${escapeHtml(view.error)}</p>` : '';
  return layout(
    'Reset your password',
    `<h1>Reset your password</h1><p>Enter your login name. We send a link to choose a new password to the email address of the account.</p>${alert}
<form method="post" action="/ui/login/${encodeURIComponent(view.uid)}/password/reset">
<label for="loginName">Login name</label><input id="loginName" name="loginName" autocomplete="username" required autofocus value="${escapeHtml(view.loginName ?? '')}">
<button type="submit">Send the mail</button>
</form>${back}`,
    view.look,
  );
}
