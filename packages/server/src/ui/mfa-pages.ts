/**
 * The login's second-factor pages beside ui/pages.ts: setting up an authenticator app (forced by
 * the login policy, or offered with a skip button), and the refusal when a second factor is forced
 * but none can be set up. Worded by the organisation's login texts (domain/texts/mfa-texts.ts),
 * styled by its label policy (layout.ts).
 */
import type { PageLook } from '../domain/login/page-look.js';
import type { OtpSetupStepView } from '../domain/login/pages.js';
import { BUILT_IN_SECOND_FACTOR_TEXTS } from '../domain/texts/mfa-texts.js';
import { escapeHtml, layout } from './layout.js';

/** The setup step's view (domain/login/pages.ts), its `otpauth://` URI drawn as a QR code (an SVG element made by the qrcode library, no user text in it). */
export type OtpSetupView = Omit<OtpSetupStepView, 'url'> & { qrSvg: string };

/** Groups of four characters, as apps show secrets for typing. */
const grouped = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');

export function otpSetupPage({ uid, qrSvg, secret, required, error, texts = BUILT_IN_SECOND_FACTOR_TEXTS, look }: OtpSetupView): string {
  const alert = error ? `<p class="error" role="alert" id="login-error">${escapeHtml(error)}</p>` : '';
  const base = `/ui/login/${encodeURIComponent(uid)}/otp/setup`;
  const why = required
    ? '<p id="setup-required">Your organisation requires a second factor. Set up an authenticator app to continue.</p>'
    : `<p id="setup-offered">${escapeHtml(texts.promptDescription)}</p>`;
  const skip = required ? '' : `<form method="post" action="${base}/skip" class="skip"><button type="submit" id="skip" class="secondary">${escapeHtml(texts.skipButtonText)}</button></form>`;
  return layout(
    texts.setupTitle,
    `<h1>${escapeHtml(texts.setupTitle)}</h1>${why}<p>${escapeHtml(texts.setupDescription)}</p>${alert}
<div id="qr-code" class="qr" role="img" aria-label="QR code for the authenticator app">${qrSvg}</div>
<p>${escapeHtml(texts.secretLabel)}: <code id="otp-secret" data-secret="${escapeHtml(secret)}">${escapeHtml(grouped(secret))}</code></p>
<form method="post" action="${base}">
<label for="code">${escapeHtml(texts.codeLabel)}</label><input id="code" name="code" inputmode="numeric" pattern="[0-9 ]{6,7}" autocomplete="one-time-code" required autofocus>
<button type="submit">${escapeHtml(texts.setupButtonText)}</button>
</form>${skip}
<p><a href="/ui/login/${encodeURIComponent(uid)}">Back to the sign-in page</a> (to use another account).</p>`,
    look,
  );
}

/** A second factor is forced, but the login policy allows none that can be set up here (ZITADEL's LOGIN-5Hm8s). */
export function secondFactorRefusedPage(uid: string, look?: PageLook): string {
  return layout(
    'Second factor required',
    `<h1>Second factor required</h1><p class="error" role="alert" id="login-error">Your organisation requires a second factor, but its login policy allows none that can be set up here.</p>
<p id="next-step">Ask your administrator to add the authenticator app (<code>SECOND_FACTOR_TYPE_OTP</code>) to the second factors of the organisation's login policy, then sign in again.</p>
<p><a href="/ui/login/${encodeURIComponent(uid)}">Back to the sign-in page</a></p>`,
    look,
  );
}
