/**
 * Field rules of the export/import document, written once: ZITADEL's protoc-gen-validate rules
 * (reference Appendix A) with PGV's wording, and protojson's input leniency (enums by name or
 * number, 64-bit numbers as strings or numbers). Output is always the canonical JSON form.
 */
import { z } from 'zod';

const runeCount = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** A string limited in runes (code points), as PGV counts `min_len` / `max_len`. */
export function runes(min: number, max?: number) {
  return z.string().superRefine((s, ctx) => {
    const n = min > 0 || max !== undefined ? runeCount(s) : 0;
    if (min > 0 && max !== undefined && (n < min || n > max)) {
      ctx.addIssue({ code: 'custom', message: `value length must be between ${min} and ${max} runes, inclusive` });
    } else if (max !== undefined && n > max) {
      ctx.addIssue({ code: 'custom', message: `value length must be at most ${max} runes` });
    } else if (n < min) {
      ctx.addIssue({ code: 'custom', message: `value length must be at least ${min} runes` });
    }
  });
}

/** A string limited in UTF-8 bytes (PGV `max_bytes`). */
export function maxBytes(max: number) {
  return z.string().superRefine((s, ctx) => {
    if (s.length > max / 4 && Buffer.byteLength(s, 'utf8') > max) {
      ctx.addIssue({ code: 'custom', message: `value length must be at most ${max} bytes` });
    }
  });
}

// An address as PGV's `email` rule accepts it: local@host, no display name, a valid hostname.
const EMAIL = /^[^\s@"<>()[\]\\,;:]{1,64}@(?=.{1,253}$)(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)*[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;

export const email = z.string().superRefine((s, ctx) => {
  if (!EMAIL.test(s)) ctx.addIssue({ code: 'custom', message: 'value must be a valid email address' });
});

/** A proto enum: its name, or its number on input; always its name on output ('' marks an unused number). */
export function protoEnum<const T extends readonly [string, ...string[]]>(names: T) {
  const known = new Set<string>(names.filter((n) => n !== ''));
  return z.union([z.string(), z.number()]).transform((v, ctx): T[number] => {
    if (typeof v === 'number') {
      if (Number.isInteger(v) && v >= 0 && v < names.length && names[v] !== '') return names[v];
    } else if (known.has(v)) {
      return v as T[number];
    }
    ctx.addIssue({ code: 'custom', message: 'value must be one of the defined enum values' });
    return z.NEVER;
  });
}

/** uint32: a JSON number (or a numeric string, which protojson also accepts). */
export const uint32 = z.union([z.number(), z.string()]).transform((v, ctx) => {
  const n = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) {
    ctx.addIssue({ code: 'custom', message: 'value must be an unsigned 32-bit integer' });
    return z.NEVER;
  }
  return n;
});

/** uint64: serialised as a string (protojson), accepted as a string or a number. */
export const uint64 = z.union([z.number(), z.string()]).transform((v, ctx) => {
  const s = typeof v === 'number' ? (Number.isInteger(v) && v >= 0 ? String(v) : '') : v;
  if (!/^\d{1,20}$/.test(s)) {
    ctx.addIssue({ code: 'custom', message: 'value must be an unsigned 64-bit integer' });
    return z.NEVER;
  }
  return s;
});

/** google.protobuf.Duration in JSON: seconds with up to 9 fraction digits and an `s`, e.g. "3.5s". */
export function protoDuration(maxSeconds?: number) {
  return z.string().superRefine((s, ctx) => {
    const m = /^(-?)(\d+)(?:\.(\d{1,9}))?s$/.exec(s);
    if (!m) {
      ctx.addIssue({ code: 'custom', message: 'value must be a duration such as "3.5s"' });
      return;
    }
    const seconds = Number(`${m[2]}.${m[3] ?? '0'}`) * (m[1] ? -1 : 1);
    if (seconds < 0) ctx.addIssue({ code: 'custom', message: 'value must be greater than or equal to 0s' });
    else if (maxSeconds !== undefined && seconds > maxSeconds) {
      ctx.addIssue({ code: 'custom', message: `value must be less than or equal to ${maxSeconds}s` });
    }
  });
}

/** google.protobuf.Timestamp in JSON: RFC 3339. */
export const timestamp = z.string().superRefine((s, ctx) => {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/i.test(s) || Number.isNaN(Date.parse(s))) {
    ctx.addIssue({ code: 'custom', message: 'value must be an RFC 3339 timestamp' });
  }
});

/** `bytes` in JSON: standard (or URL-safe) base64. */
export const base64Bytes = (minLen: number, maxLen: number) =>
  z.string().superRefine((s, ctx) => {
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(s)) {
      ctx.addIssue({ code: 'custom', message: 'value must be base64' });
      return;
    }
    const len = Buffer.from(s, 'base64').length;
    if (len < minLen || len > maxLen) {
      ctx.addIssue({ code: 'custom', message: `value length must be between ${minLen} and ${maxLen} bytes, inclusive` });
    }
  });

export const bool = z.boolean().optional();
export const str = z.string().optional();
export const strList = z.array(z.string()).optional();
