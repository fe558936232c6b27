/**
 * The CLI's one reading of a JSON body as a stream (stream-json's tokenizer): verify.ts reads two
 * exports through it, sync-document.ts a sync round's answers, import-answer.ts an import's answer
 * and the export command its document's counts (readJsonWithSinks: a value assembled with its long
 * lists counted or summed up, not held).
 */

import { getManyValues, isMany, none } from 'stream-chain/defs.js';
import { jsonParser, type Token } from 'stream-json/core/parser.js';

/** The JSON tokens of a body, a chunk's worth at a time. */
export async function* tokenBatches(body: AsyncIterable<Uint8Array>): AsyncGenerator<Token[]> {
  const tokenize = jsonParser({ packValues: true, streamValues: false });
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const tokensOf = (text: string | typeof none): Token[] => {
    const out = tokenize(text as string);
    if (out === none) return [];
    return isMany(out) ? (getManyValues(out as never) as Token[]) : [out as Token];
  };
  for await (const chunk of body) yield tokensOf(decoder.decode(chunk, { stream: true }));
  yield [...tokensOf(decoder.decode()), ...tokensOf(none)];
}

/** What becomes of an array's items: each is handed over as it is complete, then `end` gives what stands for the array. */
export interface ArraySink {
  item(value: unknown): void;
  end(): unknown;
}

type Path = readonly string[];
type Frame = { path: Path; object?: Record<string, unknown>; key?: string; array?: unknown[]; sink?: ArraySink };

/** An array's items counted: the array stands as its length. */
export const countItems = (): ArraySink => {
  let n = 0;
  return { item: () => void n++, end: () => n };
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
