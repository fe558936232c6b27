/**
 * The strings of the second-factor pages of the login (setting up an authenticator app, giving its
 * code), from ZITADEL's login-text screens `initMfaPromptText`, `initMfaOtpText` and
 * `verifyMfaOtpText`: an organisation's custom texts, else the instance's, else these.
 */
import type { Repositories } from '../../store/store.js';
import { pageTexts } from './login-texts.js';

const FIELDS = {
  setupTitle: ['initMfaOtpText', 'title', 'Set up an authenticator app'],
  setupDescription: [
    'initMfaOtpText',
    'description',
    'Scan the QR code with an authenticator app (for example Google Authenticator, Microsoft Authenticator or Authy), or type the secret into it. Then enter the 6-digit code the app shows.',
  ],
  secretLabel: ['initMfaOtpText', 'secretLabel', 'Secret'],
  codeLabel: ['initMfaOtpText', 'codeLabel', 'Code'],
  setupButtonText: ['initMfaOtpText', 'nextButtonText', 'Confirm and continue'],
  promptDescription: ['initMfaPromptText', 'description', 'A second factor protects your account: besides your password, signing in then needs a code from an app on your phone.'],
  skipButtonText: ['initMfaPromptText', 'skipButtonText', 'Skip for now'],
  verifyTitle: ['verifyMfaOtpText', 'title', 'Two-factor sign-in'],
  verifyDescription: ['verifyMfaOtpText', 'description', 'Your password is correct. Open your authenticator app and enter the 6-digit code it shows for this account.'],
  verifyCodeLabel: ['verifyMfaOtpText', 'codeLabel', 'Code'],
  verifyButtonText: ['verifyMfaOtpText', 'nextButtonText', 'Continue'],
} as const;

export type SecondFactorTexts = Record<keyof typeof FIELDS, string>;

export const BUILT_IN_SECOND_FACTOR_TEXTS = Object.fromEntries(Object.entries(FIELDS).map(([key, [, , text]]) => [key, text])) as SecondFactorTexts;

export const secondFactorTexts = (read: Repositories, instanceId: string, orgId: string, language: string): Promise<SecondFactorTexts> => pageTexts(read, instanceId, orgId, language, FIELDS);
