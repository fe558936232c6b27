/**
 * Text neither store can keep as sent: U+0000 (PostgreSQL's text and jsonb refuse it; SQLite
 * would keep it, so the two stores would disagree) and unpaired UTF-16 surrogates (jsonb refuses
 * `\ud800`; text columns would silently turn them into U+FFFD). JSON can carry both as escapes,
 * path parameters as `%00`. Input is checked for them (app.ts for every validated route input,
 * transfer/validate.ts for import documents, which may come from a bucket) so a caller gets 400
 * naming the field instead of the store's error as a 500.
 */

// `isWellFormed` is false exactly when a surrogate does not form a pair; both checks are native
// scans, four times faster than the one regular expression /[\u0000\p{Cs}]/u (every field of
// every validated request passes here).
// Node 20 has it (V8 11.3); the project's lib (ES2022) does not name it, and ES2024's would also
// name what Node 20 lacks (Promise.withResolvers).
type WellFormedCheck = { isWellFormed(): boolean };
export const isUnstorableText = (s: string): boolean => s.includes('\u0000') || !(s as string & WellFormedCheck).isWellFormed();
const isUnstorable = isUnstorableText;

/** U+0000 alone: no login name, password, id or code holds one, and PostgreSQL cannot look one up. */
export const hasNul = (value: string): boolean => value.includes('\u0000');

/**
 * The path of the first string (value or object key) in `value` that cannot be stored, or
 * undefined. Iterative: a deeply nested document must not overflow the stack.
 */
export const UNSTORABLE_TEXT_MESSAGE = 'value must not contain NUL characters or unpaired surrogates';

export function findUnstorableText(value: unknown): (string | number)[] | undefined {
  if (!containsUnstorable(value)) return undefined;
  // Found: walk again keeping paths (only on the rare failing request).
  const stack: { node: unknown; path: (string | number)[] }[] = [{ node: value, path: [] }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (typeof node === 'string') {
      if (isUnstorable(node)) return path;
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push({ node: node[i], path: [...path, i] });
    } else if (node !== null && typeof node === 'object') {
      const entries = Object.entries(node);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i];
        if (isUnstorable(key)) return [...path, key];
        stack.push({ node: child, path: [...path, key] });
      }
    }
  }
  return undefined;
}

function containsUnstorable(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') {
      if (isUnstorable(node)) return true;
    } else if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
    } else if (node !== null && typeof node === 'object') {
      for (const key of Object.keys(node)) {
        if (isUnstorable(key)) return true;
        stack.push((node as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}
