/**
 * The lists of an import's answer (ImportData's `success.orgs[].humanUserIds` and the others,
 * `errors`, a dry run's `resources`), held on disk once they grow (issue 49): a list takes an
 * entry per user, and a million ids of 64 characters are ~90 MiB as JavaScript strings, before the
 * answer's JSON (as much again, twice) is made of them. Entries are kept as JSON text; once the
 * import's lists hold more than FLUSH_BYTES of it together, each list's text is sealed
 * (AES-256-GCM under the spool's key, sealed-file.ts) and appended to one file of the import's
 * spool as a record, and the list keeps the record's place. A list is read back in order, and the
 * answer is written as a stream of JSON text (jsonText), never as one string. An import whose
 * lists stay small writes nothing.
 *
 * Record: <u32 length of what follows> <sealed piece: IV, ciphertext, tag> (sealed-file.ts), the
 * record's offset bound as associated data.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { openPiece, type SealedFile, SPOOL_FILE_MODE, sealPiece } from './sealed-file.js';

/** Text the lists of one import hold in memory before they are written out. */
const FLUSH_BYTES = 1024 * 1024;
const LENGTH_BYTES = 4;

/** Where an import's answer lists go once they grow: a file of its spool, made on the first write. */
export class AnswerSpill {
  private fd?: number;
  private size = 0;
  private pendingBytes = 0;
  /** Lists with entries not yet written. */
  private readonly pending = new Set<AnswerList<unknown>>();
  private closed = false;

  constructor(
    private readonly file: SealedFile,
    private readonly flushBytes = FLUSH_BYTES,
  ) {}

  /** A new, empty list (or one holding `items`). */
  list<T>(items: readonly T[] = []): AnswerList<T> {
    const list = new AnswerList<T>(this);
    for (const item of items) list.push(item);
    return list;
  }

  /** @internal An entry of `bytes` characters was added to `list`. */
  added(list: AnswerList<unknown>, bytes: number): void {
    this.pending.add(list);
    this.pendingBytes += bytes;
    if (this.pendingBytes < this.flushBytes) return;
    for (const l of this.pending) l.flush();
    this.pending.clear();
    this.pendingBytes = 0;
  }

  /** @internal Seals `text` as a record at the end of the file; returns its offset. */
  write(text: string): number {
    if (this.closed) throw new Error("the import's answer was closed");
    this.fd ??= openSync(this.file.path, 'wx+', SPOOL_FILE_MODE);
    const offset = this.size;
    const sealed = sealPiece(this.file.key, `${this.file.aad}@${offset}`, text);
    const record = Buffer.alloc(LENGTH_BYTES + sealed.length);
    record.writeUInt32BE(sealed.length, 0);
    sealed.copy(record, LENGTH_BYTES);
    writeSync(this.fd, record, 0, record.length, offset);
    this.size += record.length;
    return offset;
  }

  /** @internal The text of the record at `offset`. */
  async read(offset: number): Promise<string> {
    const handle = await open(this.file.path, 'r');
    try {
      const head = Buffer.alloc(LENGTH_BYTES);
      await handle.read(head, 0, LENGTH_BYTES, offset);
      const sealed = Buffer.alloc(head.readUInt32BE(0));
      await handle.read(sealed, 0, sealed.length, offset + LENGTH_BYTES);
      return openPiece(this.file.key, `${this.file.aad}@${offset}`, sealed);
    } finally {
      await handle.close();
    }
  }

  /** The file is closed (the spool removes it). */
  close(): void {
    this.closed = true;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** A list of the answer: entries pushed in order, read back in order as JSON text. */
export class AnswerList<T> {
  /** Offsets of the records holding the first entries, in order. */
  private records: number[] = [];
  /** JSON of the entries after those. */
  private pending: string[] = [];
  length = 0;

  constructor(private readonly spill: AnswerSpill) {}

  push(item: T): void {
    const text = JSON.stringify(item);
    this.pending.push(text);
    this.length++;
    this.spill.added(this as AnswerList<unknown>, text.length);
  }

  /** A new, empty list kept where this one is. */
  sibling<U>(): AnswerList<U> {
    return this.spill.list<U>();
  }

  /** The entries of `other` after this list's own (`other` is not used afterwards). */
  append(other: AnswerList<T>): void {
    this.flush();
    other.flush();
    this.records.push(...other.records);
    this.length += other.length;
  }

  /** @internal Writes the pending entries out as one record. */
  flush(): void {
    if (!this.pending.length) return;
    this.records.push(this.spill.write(this.pending.join('\n')));
    this.pending = [];
  }

  /** Each entry's JSON text, in order. */
  async *json(): AsyncGenerator<string> {
    for (const offset of this.records) yield* (await this.spill.read(offset)).split('\n');
    yield* this.pending;
  }

  /**
   * The entries' JSON texts joined by commas (the inside of the list's JSON array), a record at a
   * time: the text of up to FLUSH_BYTES of entries in one piece. JSON.stringify writes no raw
   * line break, so a record's separators become commas as they are. Entry by entry, through the
   * nested generators of `pieces`, the answer of a million users held the event loop for seconds:
   * an async generator hands each piece on in microtasks, without a turn of the loop in between.
   */
  async *joinedJson(): AsyncGenerator<string> {
    for (const offset of this.records) yield (await this.spill.read(offset)).replaceAll('\n', ',');
    if (this.pending.length) yield this.pending.join(',');
  }

  /** The entries (tests, small lists). */
  async toArray(): Promise<T[]> {
    const out: T[] = [];
    for await (const text of this.json()) out.push(JSON.parse(text) as T);
    return out;
  }
}

/** A value whose JSON is text from elsewhere (a job's answer, stored in parts): spliced in as it is. */
export class RawJson {
  constructor(readonly chunks: () => AsyncIterable<string>) {}
}

/** Text gathered before it is handed on. */
const CHUNK_CHARS = 64 * 1024;

/**
 * `value` as JSON text, in pieces of 64 KiB or more (a list's record comes whole, up to about
 * 1 MiB): as JSON.stringify would write it (undefined fields left out, toJSON honoured), with every
 * AnswerList and RawJson read as it is written.
 */
export async function* jsonText(value: unknown): AsyncGenerator<string> {
  let out = '';
  for await (const piece of pieces(value)) {
    out += piece;
    if (out.length >= CHUNK_CHARS) {
      yield out;
      out = '';
    }
  }
  if (out) yield out;
}

async function* pieces(value: unknown): AsyncGenerator<string> {
  if (value instanceof AnswerList) {
    let first = true;
    yield '[';
    for await (const text of value.joinedJson()) {
      yield first ? text : `,${text}`;
      first = false;
    }
    yield ']';
  } else if (value instanceof RawJson) {
    yield* value.chunks();
  } else if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      if (i) yield ',';
      const item = value[i] as unknown;
      yield* item === undefined || typeof item === 'function' ? ['null'] : pieces(item);
    }
    yield ']';
  } else if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON !== 'function') {
    let first = true;
    yield '{';
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined || typeof item === 'function') continue;
      yield `${first ? '' : ','}${JSON.stringify(key)}:`;
      first = false;
      yield* pieces(item);
    }
    yield '}';
  } else {
    yield JSON.stringify(value) ?? 'null';
  }
}
