/**
 * The message texts' template language: ZITADEL's Go templates, as far as its texts use them —
 * `{{.Name}}` for the variables of description §2.2, nothing else. A text is checked when it is
 * stored (PUT, import): a `{{` that does not form `{{.Name}}`, or a name outside the list, is
 * refused there with the field named, so a stored text always renders.
 */
export const TEMPLATE_VARIABLES = [
  'Code',
  'UserName',
  'FirstName',
  'LastName',
  'NickName',
  'DisplayName',
  'LastEmail',
  'VerifiedEmail',
  'LastPhone',
  'VerifiedPhone',
  'PreferredLoginName',
  'LoginNames',
  'ChangeDate',
  'CreationDate',
] as const;
export type TemplateVariable = (typeof TEMPLATE_VARIABLES)[number];
export type TemplateValues = Partial<Record<TemplateVariable, string>>;

const KNOWN = new Set<string>(TEMPLATE_VARIABLES);
/** `{{ .Name }}` with optional spaces, as Go's parser allows. */
const ACTION = /\{\{\s*\.([A-Za-z][A-Za-z0-9]*)\s*\}\}/g;

/** Why the text is not a template we can render, or undefined when it is. */
export function templateProblem(text: string): string | undefined {
  // Most fields are plain text: nothing to check.
  if (!text.includes('{') && !text.includes('}')) return undefined;
  // `exec` on the one global regex, not `matchAll` (which clones it on every call): a text write
  // checks its fields on every request. `rest` is the text without its actions. exec leaves
  // `lastIndex` at 0 when it finds no more; a return from inside the loop resets it.
  let rest = '';
  let from = 0;
  for (let match = ACTION.exec(text); match; match = ACTION.exec(text)) {
    if (!KNOWN.has(match[1]!)) {
      ACTION.lastIndex = 0;
      return `unknown variable {{.${match[1]}}} (known: ${TEMPLATE_VARIABLES.map((v) => `{{.${v}}}`).join(', ')})`;
    }
    rest += text.slice(from, match.index);
    from = ACTION.lastIndex;
  }
  rest += text.slice(from);
  const open = rest.indexOf('{{');
  if (open >= 0) return `"${rest.slice(open, open + 20)}…" is not a template action this service knows; write variables as {{.Name}}`;
  if (rest.includes('}}')) return 'a "}}" without its "{{"';
  return undefined;
}

/** Fills the variables; `escape` is applied to the values (HTML parts), never to the text itself. */
export function renderTemplate(text: string, values: TemplateValues, escape: (s: string) => string = (s) => s): string {
  return text.replace(ACTION, (_all, name: string) => escape(values[name as TemplateVariable] ?? ''));
}

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
