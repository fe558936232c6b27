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
import type { Token } from 'stream-json/core/parser.js';
import { tokenBatches } from './json-tokens.js';

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

/** What becomes of an array's items: each is handed over as it is complete, then `end` gives what stands for the array. */
interface ArraySink {
  item(value: unknown): void;
  end(): unknown;
}

type Path = readonly string[];
type Frame = { path: Path; object?: Record<string, unknown>; key?: string; array?: unknown[]; sink?: ArraySink };

const counter = (): ArraySink => {
  let n = 0;
  return { item: () => void n++, end: () => n };
};

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
 * A JSON body assembled from its tokens, where `sinkFor` may take an array's items (its path: the
 * keys down to it, `*` for an array's item) instead of keeping them.
 */
export async function readJsonWithSinks(body: AsyncIterable<Uint8Array>, sinkFor: (path: Path) => ArraySink | undefined): Promise<unknown> {
  const stack: Frame[] = [];
  let root: unknown;
  const pathOfNext = (): Path => {
    const top = stack.at(-1);
    if (!top) return [];
    return [...top.path, top.object ? top.key! : '*'];
  };
  const place = (value: unknown) => {
    const top = stack.at(-1);
    if (!top) root = value;
    else if (top.object) top.object[top.key!] = value;
    else if (top.sink) top.sink.item(value);
    else top.array!.push(value);
  };
  const token = (t: Token) => {
    switch (t.name) {
      case 'startObject':
        stack.push({ path: pathOfNext(), object: {} });
        break;
      case 'startArray': {
        const path = pathOfNext();
        const sink = sinkFor(path);
        stack.push(sink ? { path, sink } : { path, array: [] });
        break;
      }
      case 'endObject':
      case 'endArray': {
        const done = stack.pop()!;
        place(done.object ?? (done.sink ? done.sink.end() : done.array));
        break;
      }
      case 'keyValue':
        stack.at(-1)!.key = t.value as string;
        break;
      case 'stringValue':
        place(t.value);
        break;
      case 'numberValue':
        place(Number(t.value));
        break;
      case 'nullValue':
        place(null);
        break;
      case 'trueValue':
        place(true);
        break;
      case 'falseValue':
        place(false);
        break;
    }
  };
  for await (const tokens of tokenBatches(body)) for (const t of tokens) token(t);
  return root;
}

/**
 * ImportData's answer at `at` in the body (`[]` for ImportData's own, `['job', 'result']` for an
 * import job's view), its lists counted; the rest of the body as it is.
 */
export function readImportAnswer(body: AsyncIterable<Uint8Array>, at: Path = []): Promise<unknown> {
  const under = (path: Path, ...rest: string[]) => path.length === at.length + rest.length && [...at, ...rest].every((key, i) => key === '*' || key === path[i]);
  return readJsonWithSinks(body, (path) => {
    if (under(path, 'errors') || under(path, 'warnings')) return problems();
    // Every list of an organisation's entry, and a dry run's outcomes.
    if (under(path, 'success', 'orgs', '*', '*') || under(path, 'resources')) return counter();
    return undefined;
  });
}

/** An answer read by readImportAnswer, with its problem lists present (empty lists are left out of the body). */
export function completeAnswer(answer: Partial<ImportAnswer> & { success?: ImportAnswer['success'] }): ImportAnswer {
  const none = (): Problems => ({ first: [], total: 0, byType: {} });
  return { ...answer, errors: answer.errors ?? none(), warnings: answer.warnings ?? none(), success: { orgs: answer.success?.orgs ?? [] } };
}
