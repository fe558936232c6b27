/**
 * An import's answer as the CLI reads it (ImportData's, or an import job's view with its `result`):
 * as a stream, keeping what the CLI says of it, never its lists. The answer lists an id per
 * imported resource (`success.orgs[].humanUserIds`, a dry run's `resources`, an error per refused
 * user): for a million users with 64-character ids that is ~64 MiB of text, and `res.json()` held it
 * whole, then as a million strings: the CLI's peak grew by ~340 MiB reading the answer of an import
 * it had streamed in a few MiB (BENCHMARKS.md, "Imports at a million users"). Here each list becomes
 * its count, and `errors` and `warnings` their first LISTED entries, their number and their number
 * per kind of resource.
 */
import { type ArraySink, countItems, readJsonWithSinks } from './json-tokens.js';

/** Errors and warnings kept to be shown (the rest are counted). */
export const LISTED = 20;

export type Counts = { created: number; unchanged: number; changed: number; skipped?: number; refused: number };
export type Problem = { type: string; id: string; message: string };
/** A list of problems, read: the first LISTED, how many in all and per `type`. */
export interface Problems {
  first: Problem[];
  total: number;
  byType: Record<string, number>;
}

/** ImportData's answer with its lists counted. */
export interface ImportAnswer {
  errors: Problems;
  warnings: Problems;
  /** Each organisation's id and its lists' lengths (`humanUserIds: 1000000`). */
  success: { orgs: ({ orgId: string } & Record<string, number | string>)[] };
  /** This service's (absent in ZITADEL's answer): the outcomes, in all and per kind of resource. */
  summary?: Counts;
  summaryByType?: Record<string, Counts>;
  dryRun?: boolean;
  /** A dry run's `resources`: how many. */
  resources?: number;
}

const problems = (): ArraySink => {
  const out: Problems = { first: [], total: 0, byType: {} };
  return {
    item: (value) => {
      const p = value as Problem;
      out.total++;
      out.byType[p.type] = (out.byType[p.type] ?? 0) + 1;
      if (out.first.length < LISTED) out.first.push(p);
    },
    end: () => out,
  };
};

/**
 * ImportData's answer at `at` in the body (`[]` for ImportData's own, `['job', 'result']` for an
 * import job's view), its lists counted; the rest of the body as it is.
 */
export function readImportAnswer(body: AsyncIterable<Uint8Array>, at: readonly string[] = []): Promise<unknown> {
  const under = (path: readonly string[], ...rest: string[]) => path.length === at.length + rest.length && [...at, ...rest].every((key, i) => key === '*' || key === path[i]);
  return readJsonWithSinks(body, (path) => {
    if (under(path, 'errors') || under(path, 'warnings')) return problems();
    // Every list of an organisation's entry, and a dry run's outcomes.
    if (under(path, 'success', 'orgs', '*', '*') || under(path, 'resources')) return countItems();
    return undefined;
  });
}

/** An answer read by readImportAnswer, with its problem lists present (empty lists are left out of the body). */
export function completeAnswer(answer: Partial<ImportAnswer> & { success?: ImportAnswer['success'] }): ImportAnswer {
  const none = (): Problems => ({ first: [], total: 0, byType: {} });
  return { ...answer, errors: answer.errors ?? none(), warnings: answer.warnings ?? none(), success: { orgs: answer.success?.orgs ?? [] } };
}
