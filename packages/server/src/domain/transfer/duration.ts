/**
 * Go's time.ParseDuration, which ZITADEL uses for the export/import `timeout`: a sequence of
 * decimal numbers with units ns, us (µs, μs), ms, s, m, h, e.g. "30s", "10m", "1m0s",
 * "1h2m3.5s", optionally signed; "0" alone is allowed. Anything else is invalid (Go returns an
 * error; ZITADEL turned it into a 500, reference §5.2 / issue #8825 — here it is a 400).
 */
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const PART = /^(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;

/** Milliseconds of a Go duration string, or `undefined` when Go would reject it. */
export function parseGoDuration(input: string): number | undefined {
  let s = input;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') return undefined;
  let total = 0;
  while (s.length > 0) {
    const m = PART.exec(s);
    if (!m) return undefined;
    total += Number(m[1]) * UNIT_MS[m[2]];
    s = s.slice(m[0].length);
  }
  return sign * total;
}

/** When a request names no timeout: generous enough for 100,000 users on a slow disk. */
export const DEFAULT_TRANSFER_TIMEOUT_MS = 30 * 60_000;
/** The longest timeout a request may ask for (a day): beyond that it is surely a typo. */
export const MAX_TRANSFER_TIMEOUT_MS = 24 * 3_600_000;
