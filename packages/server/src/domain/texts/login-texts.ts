/**
 * The strings of the login page, from the custom login texts (ZITADEL's SetCustomLoginTextsRequest
 * screens, stored per owner and language; imported and exported with the organisation): the
 * organisation's, else the instance's, else the built-in English ones, field by field. Only the
 * fields this service's page has are read; ZITADEL's other screens travel untouched.
 */
import { parseLanguage } from '../languages.js';
import type { Repositories } from '../../store/store.js';

/** The page's strings and the (screen, field) of ZITADEL's login texts each is taken from. */
const FIELDS = {
  title: ['loginText', 'title', 'Sign in'],
  loginNameLabel: ['loginText', 'loginNameLabel', 'Login name'],
  passwordLabel: ['passwordText', 'passwordLabel', 'Password'],
  nextButtonText: ['passwordText', 'nextButtonText', 'Sign in'],
  resetLinkText: ['passwordText', 'resetLinkText', 'Forgot your password?'],
  externalUserDescription: ['loginText', 'externalUserDescription', 'or sign in with'],
} as const;

export type LoginPageTexts = Record<keyof typeof FIELDS, string>;

export const BUILT_IN_LOGIN_PAGE_TEXTS = Object.fromEntries(Object.entries(FIELDS).map(([key, [, , text]]) => [key, text])) as LoginPageTexts;

/** The first supported language of the authorization request's `ui_locales`, else English. */
export function loginLanguage(uiLocales: unknown): string {
  for (const tag of (typeof uiLocales === 'string' ? uiLocales : '').split(' ')) {
    try {
      return parseLanguage(tag.split('-')[0] ?? '');
    } catch {
      /* not supported: the next one */
    }
  }
  return 'en';
}

export async function loginPageTexts(read: Repositories, instanceId: string, orgId: string, language: string): Promise<LoginPageTexts> {
  const [own, instance] = await Promise.all([read.loginTexts.get(orgId, language), orgId === instanceId ? undefined : read.loginTexts.get(instanceId, language)]);
  const pick = (screens: Record<string, Record<string, string>> | undefined, screen: string, field: string) => {
    const value = screens?.[screen]?.[field];
    return typeof value === 'string' && value.trim() ? value : undefined;
  };
  return Object.fromEntries(Object.entries(FIELDS).map(([key, [screen, field, builtIn]]) => [
    key,
    pick(own?.screens, screen, field) ?? pick(instance?.screens, screen, field) ?? builtIn,
  ])) as LoginPageTexts;
}
