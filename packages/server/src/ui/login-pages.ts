/**
 * Renders the page a login flow chose (domain/login/pages.ts) with the page functions beside it:
 * the one place a login page becomes HTML. Async for the authenticator app's QR code, which the
 * qrcode package draws as an SVG element (no JavaScript, no external request).
 */
import QRCode from 'qrcode';
import type { LoginPage, LoginPages } from '../domain/login/pages.js';
import { otpSetupPage, secondFactorRefusedPage } from './mfa-pages.js';
import { donePage, federationErrorPage, forgotPasswordPage, initPage, linkPage, loginPage, messagePage, newPasswordPage, otpPage, verificationPage } from './pages.js';
import { registerPage, registrationClosedPage, registrationLimitedPage, registrationSentPage } from './register-pages.js';
import { signInStartPage } from './start-pages.js';

const RENDER: { [K in keyof LoginPages]: (page: LoginPages[K]) => string | Promise<string> } = {
  'sign-in': loginPage,
  'sign-in-expired': () => signInStartPage({ expired: true }),
  link: linkPage,
  refusal: (p) => federationErrorPage(p.message, p.backTo),
  otp: otpPage,
  'otp-setup': async (p) => otpSetupPage({ ...p, qrSvg: await QRCode.toString(p.url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, width: 192 }) }),
  'second-factor-refused': (p) => secondFactorRefusedPage(p.uid, p.look),
  'new-password': newPasswordPage,
  'forgot-password': forgotPasswordPage,
  verification: verificationPage,
  'set-password': initPage,
  done: (p) => donePage(p.title, p.text, p.next, { look: p.look, continueTo: p.continueTo }),
  message: (p) => messagePage(p.title, p.text, p.look),
  register: registerPage,
  'registration-closed': registrationClosedPage,
  'registration-sent': registrationSentPage,
  'registration-limited': registrationLimitedPage,
};

export async function renderLoginPage(page: LoginPage): Promise<string> {
  return (RENDER[page.name] as (page: LoginPage) => string | Promise<string>)(page);
}
