/**
 * A file that holds a whole import request (`{"timeout":…,"data_orgs":<document>}`, as ZITADEL's
 * documentation gives its bulk import), sent without holding the document: a million users are
 * hundreds of MiB, which `JSON.parse` of the file would hold several times over (issue 49).
 *
 * Two passes over the file. The first (`scanRequestFile`) reads its bytes once and finds the
 * top-level members: their text, except the document's, of which only the place is kept. The
 * second (`requestBody`) sends the request: the file's other members with the command line's
 * options in their place, then the document's bytes as read from the file. The server validates
 * the document itself; this scan only needs to find where the top-level members begin and end.
 */
import { createReadStream } from 'node:fs';

/** The names a request gives its document under (ImportData's fields, both spellings). */
export const DOCUMENT_KEYS: ReadonlySet<string> = new Set(['data_orgs', 'dataOrgs', 'data_orgsv1', 'dataOrgsv1']);
/** A member other than the document is a few options: more than this is not an import request. */
const MAX_MEMBER_BYTES = 1024 * 1024;

export interface RequestFile {
  /** The top-level members other than the document, parsed. */
  fields: Record<string, unknown>;
  /** The document's member name as the file spells it. */
  documentKey: string;
  /** Where the document's value is in the file: from `start` to before `end` (bytes). */
  start: number;
  end: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** The first pass: the file's top-level members, the document's only located. Throws when the file is not such a request. */
export async function scanRequestFile(path: string): Promise<RequestFile> {
  const fields: Record<string, unknown> = {};
  let document: { key: string; start: number; end: number } | undefined;
  // Where the scan is: `depth` counts the brackets open outside strings (1: inside the request).
  let depth = 0;
  let inString = false;
  let escaped = false;
  let state: 'before' | 'key' | 'colon' | 'value' | 'after' | 'done' = 'before';
  let keyBytes: number[] = [];
  let key = '';
  let valueStart = -1;
  let valueText: Buffer[] = [];
  let valueBytes = 0;
  let offset = 0;
  const fail = (why: string): never => {
    throw new Error(`${path} is not an import request: ${why}`);
  };
  const endMember = (at: number, tail?: Buffer) => {
    if (tail?.length) valueText.push(tail);
    if (DOCUMENT_KEYS.has(key)) {
      if (document) fail(`it holds two documents ("${document.key}" and "${key}")`);
      document = { key, start: valueStart, end: at };
    } else {
      try {
        fields[key] = JSON.parse(Buffer.concat(valueText).toString('utf8'));
      } catch {
        fail(`the value of "${key}" is not JSON`);
      }
    }
    valueText = [];
    valueBytes = 0;
  };
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    // Where, in this chunk, the value being read began (its text is kept unless it is the document's).
    let keptFrom = state === 'value' ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      const at = offset + i;
      if (inString) {
        if (state === 'key' && !(byte === QUOTE && !escaped)) keyBytes.push(byte);
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) {
          inString = false;
          if (state === 'key') {
            key = JSON.parse(`"${Buffer.from(keyBytes).toString('utf8')}"`) as string;
            state = 'colon';
          }
        }
        if (state === 'key' && keyBytes.length > MAX_MEMBER_BYTES) fail('a member name is longer than 1 MiB');
        continue;
      }
      if (isSpace(byte)) continue;
      if (state === 'before') {
        if (byte !== 0x7b) fail('it is not a JSON object');
        depth = 1;
        state = 'after';
      } else if (state === 'after') {
        // Between members: a name, or the request's end.
        if (byte === QUOTE) {
          state = 'key';
          inString = true;
          keyBytes = [];
        } else if (byte === 0x7d) {
          state = 'done';
          break;
        } else if (byte !== 0x2c) fail(`unexpected "${String.fromCharCode(byte)}" at byte ${at}`);
      } else if (state === 'colon') {
        if (byte !== 0x3a) fail(`no ":" after "${key}"`);
        state = 'value';
        valueStart = -1;
        keptFrom = i + 1;
      } else {
        // state 'value': its first byte, a string, a bracket, or the comma or brace that ends it.
        if (valueStart < 0) valueStart = at;
        if (byte === QUOTE) inString = true;
        else if (byte === 0x7b || byte === 0x5b) depth++;
        else if ((byte === 0x7d || byte === 0x5d) && depth > 1) depth--;
        else if (depth === 1 && (byte === 0x2c || byte === 0x7d)) {
          endMember(at, DOCUMENT_KEYS.has(key) ? undefined : chunk.subarray(keptFrom, i));
          keptFrom = -1;
          state = byte === 0x7d ? 'done' : 'after';
          if (state === 'done') break;
        }
      }
    }
    if (state === 'value' && keptFrom >= 0 && !DOCUMENT_KEYS.has(key)) {
      const kept = chunk.subarray(keptFrom);
      valueBytes += kept.length;
      if (valueBytes > MAX_MEMBER_BYTES) fail(`the value of "${key}" is larger than 1 MiB`);
      valueText.push(Buffer.from(kept));
    }
    offset += chunk.length;
    // What follows the request's last brace is not read (the server reads the request as sent).
    if (state === 'done') break;
  }
  if (state !== 'done') fail('it ends before its last "}"');
  if (!document) fail(`it has no document (${[...DOCUMENT_KEYS].join(', ')})`);
  return { fields, documentKey: document!.key, start: document!.start, end: document!.end };
}

/**
 * The second pass: the request to send, the file's members (`scanned.fields`) with `given` in
 * place of the file's under either spelling, then the document read from the file as it is sent.
 */
export async function* requestBody(path: string, scanned: RequestFile, given: Record<string, unknown>): AsyncGenerator<Uint8Array> {
  const fields = { ...scanned.fields };
  for (const name of Object.keys(given)) {
    delete fields[name];
    delete fields[name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];
  }
  const head = JSON.stringify({ ...fields, ...given }).slice(0, -1);
  yield Buffer.from(`${head}${head.length > 1 ? ',' : ''}${JSON.stringify(scanned.documentKey)}:`);
  if (scanned.end > scanned.start) yield* createReadStream(path, { start: scanned.start, end: scanned.end - 1 }) as AsyncIterable<Buffer>;
  yield Buffer.from('}');
}
