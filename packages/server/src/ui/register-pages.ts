/**
 * The registration page of the login (domain/login/register-form.ts) and its refusal, worded by the
 * organisation's login texts (the RegistrationUser screen) and styled by its label policy like
 * every other page (layout.ts).
 */
import type { PageLook } from '../domain/login/page-look.js';
import type { RegisterPageView } from '../domain/login/pages.js';
import { BUILT_IN_LOGIN_PAGE_TEXTS } from '../domain/texts/login-texts.js';
import { escapeHtml, layout } from './layout.js';

export function registerPage(view: RegisterPageView): string {
  const texts = view.texts ?? BUILT_IN_LOGIN_PAGE_TEXTS;
  const uid = encodeURIComponent(view.uid);
  const back = `/ui/login/${uid}`;
  const alert = view.error ? `<p class="error" role="alert" id="register-error">${escapeHtml(view.error)}</p>` : '';
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

/**
 * After an accepted registration form, whether the address was new or had an account already (the
 * page must not tell): what was mailed, and what to do next.
 */
export function registrationSentPage(view: { uid: string; email: string; look?: PageLook }): string {
  const back = `/ui/login/${encodeURIComponent(view.uid)}`;
  return layout(
    'Check your inbox',
    `<h1>Check your inbox</h1><p id="message">We sent the next step to <strong id="sent-to">${escapeHtml(view.email)}</strong>: a link that confirms your new account, or, if this address has an account already, how to sign in to it.</p>
<p id="next-step">Follow the link in that mail, then sign in with your email address and password. No mail within a few minutes? Check the spam folder and that the address is right.</p>
<p><a id="back" class="button" href="${back}">Back to the sign-in page</a></p>`,
    view.look,
  );
}

/** Too many registrations from this client address: when to try again, and what else to do. */
export function registrationLimitedPage(view: { uid: string; retryAfterSeconds: number; look?: PageLook }): string {
  const back = `/ui/login/${encodeURIComponent(view.uid)}`;
  const minutes = Math.max(1, Math.ceil(view.retryAfterSeconds / 60));
  return layout(
    'Too many new accounts',
    `<h1>Too many new accounts from your network</h1><p id="message">Too many accounts were registered from your network in the last hour. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.</p>
<p id="next-step">If you already have an account, sign in with it instead; if you share this network with many others (an office, a school), an administrator of the organisation can create your account.</p>
<p><a id="back" class="button" href="${back}">Back to the sign-in page</a></p>`,
    view.look,
  );
}
