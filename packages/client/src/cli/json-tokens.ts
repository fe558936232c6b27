/**
 * The CLI's one reading of a JSON body as a stream (stream-json's tokenizer): verify.ts reads two
 * exports through it, sync-document.ts a sync round's answers.
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
