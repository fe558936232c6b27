/**
 * The registration page of the login (http/routes/login-register.ts) and its refusal, worded by the
 * organisation's login texts (the RegistrationUser screen) and styled by its label policy like
 * every other page (layout.ts).
 */
import type { PageLook } from '../domain/login/page-look.js';
import { BUILT_IN_LOGIN_PAGE_TEXTS, type LoginPageTexts } from '../domain/texts/login-texts.js';
import { escapeHtml, layout } from './layout.js';

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
  /** A link to sign in instead (shown when the email address is taken). */
  signInInstead?: boolean;
  texts?: LoginPageTexts;
  look?: PageLook;
}

export function registerPage(view: RegisterPageView): string {
  const texts = view.texts ?? BUILT_IN_LOGIN_PAGE_TEXTS;
  const uid = encodeURIComponent(view.uid);
  const back = `/ui/login/${uid}`;
  const alert = view.error
    ? `<p class="error" role="alert" id="register-error">${escapeHtml(view.error)}${view.signInInstead ? ` <a id="sign-in-instead" href="${back}">Sign in with it</a>, or use “Forgot your password?” there.` : ''}</p>`
    : '';
  const invalid = (field: RegisterPageView['errorField']) => (view.errorField === field ? ' aria-invalid="true" autofocus' : '');
  const focusFirst = view.errorField ? '' : ' autofocus';
  const to = view.appName ? `<p class="app">to continue to <strong id="app-name">${escapeHtml(view.appName)}</strong></p>` : '';
  return layout(
    texts.registrationTitle,
    `<h1>${escapeHtml(texts.registrationTitle)}</h1>${to}<p id="register-description">${escapeHtml(texts.registrationDescription)}</p>${alert}
<form method="post" action="/ui/login/${uid}/register">
<label for="firstName">${escapeHtml(texts.firstnameLabel)}</label><input id="firstName" name="firstName" autocomplete="given-name" required maxlength="200" value="${escapeHtml(view.firstName ?? '')}"${invalid('firstName')}${focusFirst}>
<label for="lastName">${escapeHtml(texts.lastnameLabel)}</label><input id="lastName" name="lastName" autocomplete="family-name" required maxlength="200" value="${escapeHtml(view.lastName ?? '')}"${invalid('lastName')}>
<label for="email">${escapeHtml(texts.emailLabel)}</label><input id="email" name="email" type="email" autocomplete="email" required maxlength="200" value="${escapeHtml(view.email ?? '')}"${invalid('email')}>
<label for="password">${escapeHtml(texts.registrationPasswordLabel)}</label><input id="password" name="password" type="password" autocomplete="new-password" required${view.passwordRules ? ' aria-describedby="password-rules"' : ''}${invalid('password')}>
${view.passwordRules ? `<p class="hint" id="password-rules">${escapeHtml(view.passwordRules)}</p>` : ''}
<label for="passwordConfirmation">${escapeHtml(texts.passwordConfirmLabel)}</label><input id="passwordConfirmation" name="passwordConfirmation" type="password" autocomplete="new-password" required>
<button type="submit">${escapeHtml(texts.registrationNextButtonText)}</button>
</form>
<p><a id="back" href="${back}">${escapeHtml(texts.registrationBackButtonText)}</a></p>`,
    view.look,
  );
}

/** The register page where the organisation's login policy does not allow registering: what to do instead. */
export function registrationClosedPage(view: { uid?: string; look?: PageLook }): string {
  const back = view.uid
    ? `<p><a id="back" class="button" href="/ui/login/${encodeURIComponent(view.uid)}">Back to the sign-in page</a></p>`
    : '<p>Go back to the application and start signing in again.</p>';
  return layout(
    'Registration not available',
    `<h1>Registration is not available</h1><p id="message">This organisation does not let people create their own accounts here. Sign in with an account you already have, or ask the organisation's administrator to create one for you.</p>${back}`,
    view.look,
  );
}
