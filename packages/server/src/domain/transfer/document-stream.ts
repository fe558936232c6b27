/**
 * Reads an import request or document from a (sealed) file as a stream of its parts, never whole
 * (ARCHITECTURE.md, "Imports in bounded memory"): stream-json's tokenizer turns the text into
 * tokens, and this walker assembles only the small values it hands to the sink —
 *   - a request's top-level fields (`timeout`, `dataOrgsGcs`, …) except the document itself;
 *   - each organisation's single fields (`orgId`, `org`, each policy), one at a time;
 *   - each element of an organisation's lists (`humanUsers[i]`, `projects[i]`, …), one at a time.
 * Keys are normalised to lowerCamelCase as they come (json-names.ts); values are handed on raw, for the
 * sink to normalise and validate. A read of 256 KiB is processed at a time, and after each the
 * event loop gets its turn (other requests are served while a large document is read).
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { getManyValues, isMany, none } from 'stream-chain/defs.js';
import { Assembler } from 'stream-json/core/assembler.js';
import { jsonParser, type Token } from 'stream-json/core/parser.js';
import { invalidArgument } from '../errors.js';
import { toLowerCamel } from './json-names.js';
import { type ImportFile, openSealed } from './sealed-file.js';
import { isOrgListField, type OrgListField } from './validate.js';

export interface DocumentSink {
  /** A top-level field of a request (not the document): called before its value is read, may throw. */
  envelopeKey?(key: string): void;
  envelope?(key: string, value: unknown): void;
  /** The request's document (`dataOrgs`) begins: the organisations that follow are its own. */
  document?(key: string): void;
  /** A value where an object or array was expected (the document, `orgs`, an organisation): `path` names it. */
  misplaced(path: (string | number)[], value: unknown): void;
  orgStart(index: number): void;
  orgField(index: number, key: string, value: unknown): void;
  /** A list field begins (its elements follow as orgItem): may be empty. */
  orgList(index: number, key: OrgListField): void;
  orgItem(index: number, key: OrgListField, itemIndex: number, value: unknown): void;
  orgEnd(index: number): void;
  /** After each piece of the file: a chance to wait for the sink's own writes. */
  afterChunk?(): Promise<void>;
}

/** The request key whose value is the document, when read as a stream. */
const DOCUMENT_KEY = 'dataOrgs';

type Frame =
  | { kind: 'request'; key?: string }
  | { kind: 'document'; key?: string }
  | { kind: 'orgs'; next: number }
  | { kind: 'org'; index: number; key?: string }
  | { kind: 'list'; org: number; key: OrgListField; next: number }
  | { kind: 'skip' };

/**
 * Walks `file`: a request (`{timeout, dataOrgs: {orgs: […]}, …}`) or a document (`{orgs: […]}`).
 * Syntax errors become 400 (`IMPORT-js0n1`).
 */
export async function readDocumentStream(file: ImportFile, shape: 'request' | 'document', sink: DocumentSink): Promise<void> {
  const tokenize = jsonParser({ packValues: true, streamValues: false });
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const walker = new Walker(shape, sink);
  const feed = (text: string | typeof none) => {
    const out = tokenize(text as string);
    if (out === none) return;
    if (isMany(out)) for (const token of getManyValues(out as never) as Token[]) walker.token(token);
    else walker.token(out as Token);
  };
  try {
    for await (const chunk of openSealed(file, READ_CHUNK_BYTES)) {
      feed(decoder.decode(chunk, { stream: true }));
      await sink.afterChunk?.();
      await yieldToEventLoop();
    }
    feed(decoder.decode());
    feed(none);
  } catch (error) {
    if (isSyntaxProblem(error)) {
      throw invalidArgument('IMPORT-js0n1', `invalid ${shape === 'request' ? 'body' : 'document'}: not a JSON document (${error.message})`);
    }
    throw error;
  }
  if (!walker.finished) throw invalidArgument('IMPORT-js0n1', `invalid ${shape === 'request' ? 'body' : 'document'}: not a JSON document (it ends early)`);
}

/** The tokenizer's errors ("Parser cannot parse input: …"), ours, and bytes that are not UTF-8. */
function isSyntaxProblem(error: unknown): error is Error {
  if (error instanceof SyntaxError) return true;
  if (!(error instanceof Error)) return false;
  return error.message.startsWith('Parser ') || (error as { code?: string }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA';
}

/**
 * Bytes read and processed between two turns of the event loop: ~10 ms of tokenising and
 * validating here, and few enough reads that the thread pool's round trips do not dominate.
 */
const READ_CHUNK_BYTES = 256 * 1024;

const VALUE_START = new Set(['startObject', 'startArray', 'stringValue', 'numberValue', 'nullValue', 'trueValue', 'falseValue']);

/**
 * How deep a value handed to the sink may nest (a user is 3 levels deep, a login text 3). What
 * is assembled is validated by recursive functions and sent between threads by structured clone,
 * which is recursive too: a hostile body of 5,000 nested objects ran past the reader thread's
 * stack there and the import never answered. Deeper values are refused as bad input.
 */
export const MAX_VALUE_DEPTH = 64;

class Walker {
  private readonly stack: Frame[] = [];
  /** Assembling one value to hand to `deliver`, `depth` objects and arrays deep where it is now. */
  private capture?: { asm: Assembler; deliver: (value: unknown) => void; depth: number };
  /** Skipping one value: its depth so far. */
  private skipDepth = 0;
  private started = false;
  finished = false;

  constructor(
    private readonly shape: 'request' | 'document',
    private readonly sink: DocumentSink,
  ) {}

  token(t: Token): void {
    if (this.capture) {
      if (t.name === 'startObject' || t.name === 'startArray') {
        if (++this.capture.depth > MAX_VALUE_DEPTH) {
          throw invalidArgument('IMPORT-d3pth', `invalid ${this.shape === 'request' ? 'body' : 'document'}: a value nests deeper than ${MAX_VALUE_DEPTH} levels`);
        }
      } else if (t.name === 'endObject' || t.name === 'endArray') {
        this.capture.depth--;
      }
      this.capture.asm.consume(t);
      if (this.capture.asm.done) {
        const { asm, deliver } = this.capture;
        this.capture = undefined;
        deliver(asm.current);
        this.valueDone();
      }
      return;
    }
    if (this.skipDepth > 0) {
      if (t.name === 'startObject' || t.name === 'startArray') this.skipDepth++;
      else if (t.name === 'endObject' || t.name === 'endArray') this.skipDepth--;
      if (this.skipDepth === 0) this.valueDone();
      return;
    }
    const top = this.stack.at(-1);
    if (!top) {
      if (this.started) throw new SyntaxError('more than one value');
      this.started = true;
      return this.root(t);
    }
    if (t.name === 'keyValue') {
      (top as { key?: string }).key = t.value;
      return;
    }
    if (t.name === 'endObject' || t.name === 'endArray') {
      this.stack.pop();
      if (top.kind === 'org') this.sink.orgEnd(top.index);
      this.valueDone();
      return;
    }
    if (!VALUE_START.has(t.name)) return;
    this.valueIn(top, t);
  }

  /** A value of the frame on top has ended: the next one needs a key again, or the next index. */
  private valueDone(): void {
    const top = this.stack.at(-1);
    if (!top) {
      this.finished = true;
      return;
    }
    if (top.kind === 'request' || top.kind === 'document' || top.kind === 'org') top.key = undefined;
    else if (top.kind === 'orgs' || top.kind === 'list') top.next++;
  }

  private root(t: Token): void {
    if (this.shape === 'request') {
      if (t.name !== 'startObject') throw invalidArgument('API-V4l1d', 'invalid body: expected object');
      this.stack.push({ kind: 'request' });
    } else if (t.name === 'startObject') {
      this.stack.push({ kind: 'document' });
    } else {
      this.assemble(t, (value) => this.sink.misplaced([], value));
    }
  }

  private valueIn(top: Frame, t: Token): void {
    switch (top.kind) {
      case 'request': {
        const key = top.key!;
        if (toLowerCamel(key) === DOCUMENT_KEY && t.name === 'startObject') {
          this.sink.document?.(key);
          this.stack.push({ kind: 'document' });
          return;
        }
        this.sink.envelopeKey?.(key);
        return this.assemble(t, (value) => this.sink.envelope?.(key, value));
      }
      case 'document': {
        if (toLowerCamel(top.key!) !== 'orgs') return this.skip(t);
        if (t.name === 'startArray') return void this.stack.push({ kind: 'orgs', next: 0 });
        return this.assemble(t, (value) => value !== null && this.sink.misplaced(['orgs'], value));
      }
      case 'orgs': {
        const index = top.next;
        if (t.name === 'startObject') {
          this.sink.orgStart(index);
          this.stack.push({ kind: 'org', index });
          return;
        }
        return this.assemble(t, (value) => this.sink.misplaced(['orgs', index], value));
      }
      case 'org': {
        const key = toLowerCamel(top.key!);
        const index = top.index;
        if (isOrgListField(key) && t.name === 'startArray') {
          this.sink.orgList(index, key);
          return void this.stack.push({ kind: 'list', org: index, key, next: 0 });
        }
        return this.assemble(t, (value) => this.sink.orgField(index, key, value));
      }
      case 'list': {
        const { org, key, next } = top;
        return this.assemble(t, (value) => this.sink.orgItem(org, key, next, value));
      }
      case 'skip':
        return;
    }
  }

  private assemble(t: Token, deliver: (value: unknown) => void): void {
    const asm = new Assembler();
    asm.consume(t);
    if (asm.done) {
      deliver(asm.current);
      this.valueDone();
    } else {
      this.capture = { asm, deliver, depth: 1 };
    }
  }

  private skip(t: Token): void {
    if (t.name === 'startObject' || t.name === 'startArray') this.skipDepth = 1;
    else this.valueDone();
  }
}
