/**
 * The message texts' template check (domain/notifications/template.ts): what it accepts, what it
 * refuses and how it says so, and that one call never changes the next one's answer (the check
 * shares one global regex across calls).
 */
import { describe, expect, it } from 'vitest';
import { renderTemplate, templateProblem } from '../../src/domain/notifications/template.js';

describe('templateProblem', () => {
  it('accepts plain text and the known variables, spaces inside the braces included', () => {
    for (const text of ['Hello', 'Hello {{.DisplayName}},', '{{ .Code }} and {{.UserName}}{{.LastName}}', 'a { single } brace', '']) {
      expect(templateProblem(text), text).toBeUndefined();
    }
  });

  it('names an unknown variable', () => {
    expect(templateProblem('Hi {{.FirstName}}, your {{.Password}}')).toMatch(/^unknown variable \{\{\.Password\}\} \(known: \{\{\.Code\}\}, /);
  });

  it('refuses a "{{" that is not an action, quoting it, and a "}}" without its "{{"', () => {
    expect(templateProblem('Hi {{.FirstName}} {{if .X}}')).toBe('"{{if .X}}…" is not a template action this service knows; write variables as {{.Name}}');
    expect(templateProblem('{{.Code}} done }}')).toBe('a "}}" without its "{{"');
    expect(templateProblem('{{.Code')).toMatch(/^"\{\{\.Code…" is not a template action/);
  });

  it('answers each text alike whatever was checked before it', () => {
    const texts = ['{{.Password}} {{.Code}}', 'ok {{.Code}}', '{{.Code}} {{.Nope}}', '{{.Code}}{{.Code}} {{', 'x }} {{.Code}}', '{{.UserName}}'];
    const alone = texts.map((text) => templateProblem(text));
    for (let round = 0; round < 3; round++) {
      expect(texts.map((text) => templateProblem(text))).toEqual(alone);
      expect(renderTemplate('{{.Code}}-{{ .UserName }}', { Code: '1', UserName: 'u' })).toBe('1-u');
    }
    expect(alone.map((problem) => problem === undefined)).toEqual([false, true, false, false, false, true]);
  });
});
