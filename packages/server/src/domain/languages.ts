import { invalidArgument } from './errors.js';

/** The languages ZITADEL ships login and notification texts for (reference §1.3). */
export const SUPPORTED_LANGUAGES = ['bg', 'cs', 'de', 'en', 'es', 'fr', 'hu', 'id', 'it', 'ja', 'ko', 'mk', 'nl', 'pl', 'pt', 'ro', 'ru', 'sv', 'tr', 'zh'] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];

/** A BCP 47 tag as far as we need it: a primary subtag and optional subtags. */
const WELL_FORMED = /^[a-z]{2,8}(-[a-z0-9]{1,8})*$/i;

/**
 * Canonicalises (case) and checks a language tag. Unlike ZITADEL, which silently turns
 * unknown tags into `und`, the caller is told exactly which of the two rules failed.
 */
export function parseLanguage(input: string): Language {
  const tag = input.trim().toLowerCase();
  if (!WELL_FORMED.test(tag) || tag === 'und') {
    throw invalidArgument('LANG-3M9f2', `Language is undefined: "${input}" is not a language tag`);
  }
  if (!(SUPPORTED_LANGUAGES as readonly string[]).includes(tag)) {
    throw invalidArgument('LANG-lg4DP', `Language is not supported: "${input}" (supported: ${SUPPORTED_LANGUAGES.join(', ')})`);
  }
  return tag as Language;
}
