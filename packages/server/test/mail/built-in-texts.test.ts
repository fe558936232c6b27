/**
 * Every built-in message text, in every language and kind (issue 35): what people receive when
 * nobody customised the text. Fields are rendered as text (the HTML part escapes them), so markup
 * or entities in them arrive as visible `&lt;br&gt;`; a variable the renderer does not know
 * arrives as nothing; a sentence cut short arrives as it is.
 */
import { describe, expect, it } from 'vitest';
import type { Language } from '../../src/domain/languages.js';
import { templateProblem } from '../../src/domain/notifications/template.js';
import defaults from '../../src/domain/texts/default-message-texts.json' with { type: 'json' };
import { builtInText, MESSAGE_TEXT_FIELDS, MESSAGE_TEXT_LIMITS, type MessageType } from '../../src/domain/texts/message-text.js';

const KINDS: Record<string, MessageType> = { verifyemail: 'VerifyEmail', init: 'InitCode', passwordreset: 'PasswordReset' };
const texts = Object.entries(defaults as unknown as Record<string, Record<string, Record<string, string>>>)
  .filter(([kind]) => kind in KINDS)
  .flatMap(([kind, languages]) => Object.keys(languages).map((language) => ({ kind: KINDS[kind], language })));

describe('built-in message texts', () => {
  it('there are texts to walk: three kinds, twenty languages of the verify-email text', () => {
    expect(new Set(texts.map((t) => t.kind))).toEqual(new Set(['VerifyEmail', 'InitCode', 'PasswordReset']));
    expect(texts.filter((t) => t.kind === 'VerifyEmail').length).toBeGreaterThanOrEqual(20);
  });

  for (const { kind, language } of texts) {
    it(`${kind} ${language}: plain text, known variables, whole sentences, within the limits`, () => {
      const text = builtInText(kind, language as Language);
      for (const field of MESSAGE_TEXT_FIELDS) {
        const value = text[field];
        if (value === undefined) continue;
        expect(value, `${field}: markup or an entity`).not.toMatch(/<\/?[a-z][^>]*>|&[a-z]+;|&#\d+;/i);
        expect(templateProblem(value), `${field}: template`).toBeUndefined();
        // Mails come from this service (and carry the organisation's label), not from the product the texts were taken from.
        expect(value, `${field}: another product's name`).not.toMatch(/zitadel/i);
        expect(value.length, `${field}: length`).toBeLessThanOrEqual(MESSAGE_TEXT_LIMITS[field]);
        expect(value, `${field}: doubled or stray spaces`).not.toMatch(/ {2}|^\s|\s$/);
        // Brackets open and close in order: "(Code {{.Code}})" and nothing left dangling.
        let depth = 0;
        for (const ch of value.replaceAll(/\{\{[^}]*\}\}/g, '')) {
          depth += ch === '(' ? 1 : ch === ')' ? -1 : 0;
          expect(depth, `${field}: a ")" without its "(": ${value}`).toBeGreaterThanOrEqual(0);
        }
        expect(depth, `${field}: a "(" never closed: ${value}`).toBe(0);
      }
      for (const field of ['title', 'subject', 'greeting', 'text', 'buttonText'] as const) expect(text[field], field).toBeTruthy();
      // The code is what the mail is for.
      expect(text.text).toContain('{{.Code}}');
    });
  }
});
