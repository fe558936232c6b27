/**
 * How a zod failure is put into words, for API bodies (http/errors.ts) and for the organisation
 * document of an import (domain/transfer/validate.ts) alike, so that a wrong value reads the same
 * wherever it was sent: `invalid name: expected string, got number`.
 *
 * zod 4 leaves the offending value out of its issues unless asked (`reportInput`), so the value is
 * looked up by the issue's path in what was parsed.
 */
import type { z } from 'zod';

/** `orgs[0].humanUsers[3].user.email` from `['orgs', 0, 'humanUsers', 3, 'user', 'email']`. */
export function formatPath(parts: readonly PropertyKey[]): string {
  return parts.reduce<string>((acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part)), '');
}

/** One issue in words; `parsed` is the value handed to the schema the issue came from. */
export function describeZodIssue(issue: z.core.$ZodIssue, parsed: unknown): string {
  switch (issue.code) {
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    case 'too_big':
      return issue.origin === 'string' ? `value length must be at most ${String(issue.maximum)} characters` : `value must be at most ${String(issue.maximum)}`;
    case 'too_small':
      return issue.origin === 'string'
        ? Number(issue.minimum) === 1
          ? 'value is required and must not be empty'
          : `value length must be at least ${String(issue.minimum)} characters`
        : `value must be at least ${String(issue.minimum)}`;
    case 'invalid_type': {
      const sent = issue.input !== undefined ? issue.input : valueAt(parsed, issue.path);
      return sent === undefined ? 'value is required' : `expected ${issue.expected}, got ${typeName(sent)}`;
    }
    case 'invalid_format':
      return FORMAT_WORDS[issue.format] ?? issue.message;
    default:
      return issue.message;
  }
}

/** The formats the spec uses (`format: email`, …), said as the API says everything else. */
const FORMAT_WORDS: Record<string, string> = {
  email: 'value must be a valid email address',
  url: 'value must be an absolute URL',
  datetime: 'value must be an RFC 3339 date-time',
};

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const part of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  return value;
}

function typeName(value: unknown): string {
  return Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
}
