/**
 * Custom login texts (ZITADEL's SetCustomLoginTextsRequest screens, stored per owner and language;
 * set through the admin or management API, imported and exported with the organisation) and the
 * strings of the login page taken from them: the organisation's, else the instance's, else the
 * built-in English ones, field by field. Only the fields this service's page has are read;
 * ZITADEL's other screens are kept and shown as they were set.
 */

import type { Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { changedDetails, type ObjectDetails, viewDetails } from '../details.js';
import { notFound } from '../errors.js';
import { parseLanguage } from '../languages.js';
import type { TextScope } from './text-scope.js';

/** The page's strings and the (screen, field) of ZITADEL's login texts each is taken from. */
const FIELDS = {
  title: ['loginText', 'title', 'Sign in'],
  loginNameLabel: ['loginText', 'loginNameLabel', 'Login name'],
  passwordLabel: ['passwordText', 'passwordLabel', 'Password'],
  nextButtonText: ['passwordText', 'nextButtonText', 'Sign in'],
  resetLinkText: ['passwordText', 'resetLinkText', 'Forgot your password?'],
  externalUserDescription: ['loginText', 'externalUserDescription', 'or sign in with'],
  registerButtonText: ['loginText', 'registerButtonText', 'Create an account'],
  // The registration page (ZITADEL's RegistrationUser screen; http/routes/login-register.ts).
  registrationTitle: ['registrationUserText', 'title', 'Create your account'],
  registrationDescription: ['registrationUserText', 'description', 'Your email address will be your login name. We send you a mail to verify it.'],
  firstnameLabel: ['registrationUserText', 'firstnameLabel', 'First name'],
  lastnameLabel: ['registrationUserText', 'lastnameLabel', 'Last name'],
  emailLabel: ['registrationUserText', 'emailLabel', 'Email address'],
  registrationPasswordLabel: ['registrationUserText', 'passwordLabel', 'Password'],
  passwordConfirmLabel: ['registrationUserText', 'passwordConfirmLabel', 'Password again'],
  registrationNextButtonText: ['registrationUserText', 'nextButtonText', 'Create account and continue'],
  registrationBackButtonText: ['registrationUserText', 'backButtonText', 'Back to the sign-in page'],
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
  return pageTexts(read, instanceId, orgId, language, FIELDS);
}

/** (screen, field, built-in English text) of ZITADEL's login texts, per string of a page. */
export type PageTextFields = Record<string, readonly [screen: string, field: string, builtIn: string]>;

/** A page's strings: each the organisation's, else the instance's, else the built-in one. */
export async function pageTexts<F extends PageTextFields>(read: Repositories, instanceId: string, orgId: string, language: string, fields: F): Promise<Record<keyof F, string>> {
  const [own, instance] = await Promise.all([read.loginTexts.get(orgId, language), orgId === instanceId ? undefined : read.loginTexts.get(instanceId, language)]);
  const pick = (screens: Record<string, Record<string, string>> | undefined, screen: string, field: string) => {
    const value = screens?.[screen]?.[field];
    return typeof value === 'string' && value.trim() ? value : undefined;
  };
  return Object.fromEntries(Object.entries(fields).map(([key, [screen, field, builtIn]]) => [key, pick(own?.screens, screen, field) ?? pick(instance?.screens, screen, field) ?? builtIn])) as Record<
    keyof F,
    string
  >;
}

// ---- ZITADEL's GetCustomLoginTexts, GetDefaultLoginTexts, SetCustomLoginText, ResetCustomLoginTextToDefault ----

/** The screens, each a set of short strings (the organisation document's shape, LOGIN_TEXT_SCREENS). */
export type LoginTextScreens = Record<string, Record<string, string>>;

export interface LoginTextsView {
  details: Partial<ObjectDetails>;
  isDefault: boolean;
  [screen: string]: unknown;
}

/** The built-in texts: the fields this service's login page has, in English (other languages fall back to them). */
export function builtInLoginScreens(): LoginTextScreens {
  const screens: LoginTextScreens = {};
  for (const [screen, field, text] of Object.values(FIELDS)) (screens[screen] ??= {})[field] = text;
  return screens;
}

/** Screens without empty fields, and without screens left empty (an empty field means "not customised"). */
function compactScreens(input: LoginTextScreens): LoginTextScreens {
  const out: LoginTextScreens = {};
  for (const [screen, fields] of Object.entries(input)) {
    const kept = Object.fromEntries(Object.entries(fields ?? {}).filter(([, v]) => typeof v === 'string' && v !== ''));
    if (Object.keys(kept).length) out[screen] = kept;
  }
  return out;
}

/** SetCustomLoginText: replaces the owner's texts of the language (screens left out are cleared). */
export async function setLoginTexts(store: Store, ctx: RequestContext, scope: TextScope, languageInput: string, input: LoginTextScreens): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, scope.write);
  const language = parseLanguage(languageInput);
  const screens = compactScreens(input);
  return store.transaction(async (tx) => {
    const current = await tx.loginTexts.get(scope.ownerId, language);
    const event = await tx.events.append({
      aggregateType: scope.aggregate,
      aggregateId: scope.ownerId,
      type: `${scope.aggregate}.customtext.login.set`,
      payload: { language, screens: Object.keys(screens) },
      creator: ctx.caller.userId,
      resourceOwner: scope.ownerId,
    });
    await tx.loginTexts.upsert({ ownerId: scope.ownerId, language, screens, sequence: event.sequence, createdAt: current?.createdAt ?? event.createdAt, changedAt: event.createdAt });
    return { details: changedDetails(event) };
  });
}

/** The owner's texts; where none are stored, what applies instead (`isDefault: true`). */
export async function getLoginTexts(store: Store, ctx: RequestContext, scope: TextScope, languageInput: string): Promise<{ customText: LoginTextsView }> {
  requirePermission(ctx, scope.read);
  const language = parseLanguage(languageInput);
  const row = await store.read.loginTexts.get(scope.ownerId, language);
  if (row) return { customText: { ...row.screens, isDefault: false, details: viewDetails(row, scope.ownerId) } };
  return { customText: { ...(await fallbackScreens(store, ctx, scope, language)), isDefault: true, details: { resourceOwner: scope.ownerId } } };
}

/** What an owner without texts of its own falls back to: for an organisation the instance's over the built-in ones. */
export async function getDefaultLoginTexts(store: Store, ctx: RequestContext, scope: TextScope, languageInput: string): Promise<{ customText: LoginTextsView }> {
  requirePermission(ctx, scope.read);
  const language = parseLanguage(languageInput);
  return { customText: { ...(await fallbackScreens(store, ctx, scope, language)), isDefault: true, details: {} } };
}

async function fallbackScreens(store: Store, ctx: RequestContext, scope: TextScope, language: string): Promise<LoginTextScreens> {
  const builtIn = builtInLoginScreens();
  if (scope.aggregate === 'instance') return builtIn;
  const instance = (await store.read.loginTexts.get(ctx.instanceId, language))?.screens ?? {};
  const merged: LoginTextScreens = { ...builtIn };
  for (const [screen, fields] of Object.entries(instance)) merged[screen] = { ...(merged[screen] ?? {}), ...fields };
  return merged;
}

export async function resetLoginTexts(store: Store, ctx: RequestContext, scope: TextScope, languageInput: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, scope.delete);
  const language = parseLanguage(languageInput);
  return store.transaction(async (tx) => {
    if (!(await tx.loginTexts.get(scope.ownerId, language))) throw notFound(scope.aggregate === 'org' ? 'ORG-fju90' : 'INSTANCE-fju90', 'Custom login texts not found');
    const event = await tx.events.append({
      aggregateType: scope.aggregate,
      aggregateId: scope.ownerId,
      type: `${scope.aggregate}.customtext.login.removed`,
      payload: { language },
      creator: ctx.caller.userId,
      resourceOwner: scope.ownerId,
    });
    await tx.loginTexts.remove(scope.ownerId, language);
    return { details: changedDetails(event) };
  });
}
