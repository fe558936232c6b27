/** Zero values left out of the document, as protojson leaves them out, so a document without them comes back without them. */
import { ENUMS } from '../enums.js';

/** Drops undefined, empty strings, false and empty lists, as protojson omits zero values. */
export function compact<T extends Record<string, unknown>>(obj: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined || v === null || v === '' || v === false) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  return out as Partial<T>;
}

/** Every enum's zero value (its first name), which protojson leaves out like other zero values. */
const ENUM_ZEROS = new Set<string>(Object.values(ENUMS).map((names) => names[0]));

/** Settings as protojson writes them: zero values (false, '', 0, empty lists, an enum's zero) left out. */
export function protoCompact(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(compact(obj)).filter(([, v]) => v !== 0 && !(typeof v === 'string' && ENUM_ZEROS.has(v))));
}
