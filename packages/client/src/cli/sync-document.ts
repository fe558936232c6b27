/**
 * A sync round's documents, read as streams (sync.ts): an incremental export's answer
 * (`{"checkpoint":…,"removed":[…],"orgs":[{…}]}`) becomes entries — its top-level fields, then each
 * organisation's single fields and each item of its lists, one at a time — so a round holds no
 * document whatever the size of what changed: only the removals (ids) and the ids touched.
 *
 * The source's answer is kept for the import in a spool file, sealed under a key that lives in
 * memory only (AES-256-GCM: it holds password hashes and TOTP secrets when they travel), written
 * as one JSON line per entry and read back as the import's request body, less what the conflict
 * policy keeps of the target's (`keep`). The file goes when the round ends, whatever its outcome.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Assembler } from 'stream-json/core/assembler.js';
import type { Token } from 'stream-json/core/parser.js';
import { tokenBatches } from './json-tokens.js';

/** A top-level field of the answer (`checkpoint`, `removed`), an organisation's single field, or one item of its lists. */
export type Entry = { at: 'root'; key: string; value: unknown } | { at: 'field' | 'item'; orgId: string; field: string; value: unknown };

const VALUE_START = new Set(['startObject', 'startArray', 'stringValue', 'numberValue', 'nullValue', 'trueValue', 'falseValue']);

type Frame = { at: 'root'; key?: string } | { at: 'orgs' } | { at: 'org'; key?: string; orgId?: string } | { at: 'list'; field: string };

/** Tokens → entries (the shape verify.ts reads, without its digests): each value assembled alone. */
class EntryReader {
  readonly ready: Entry[] = [];
  private readonly stack: Frame[] = [];
  private value?: { asm: Assembler; deliver: (value: unknown) => void };

  token(t: Token): void {
    if (this.value) {
      this.value.asm.consume(t);
      if (this.value.asm.done) {
        const { asm, deliver } = this.value;
        this.value = undefined;
        deliver(asm.current);
      }
      return;
    }
    const top = this.stack.at(-1);
    if (t.name === 'keyValue') {
      if (top?.at === 'root' || top?.at === 'org') top.key = t.value as string;
      return;
    }
    if (t.name === 'endObject' || t.name === 'endArray') return void this.stack.pop();
    if (!VALUE_START.has(t.name)) return;
    if (!top) {
      if (t.name !== 'startObject') throw new Error('the answer is not an export document');
      this.stack.push({ at: 'root' });
    } else if (top.at === 'root') {
      const key = top.key!;
      if (key === 'orgs' && t.name === 'startArray') this.stack.push({ at: 'orgs' });
      else this.assemble(t, (value) => this.ready.push({ at: 'root', key, value }));
    } else if (top.at === 'orgs') {
      if (t.name !== 'startObject') throw new Error('the answer lists something other than organisations');
      this.stack.push({ at: 'org' });
    } else if (top.at === 'org') {
      const field = top.key!;
      if (t.name === 'startArray') return void this.stack.push({ at: 'list', field });
      this.assemble(t, (value) => {
        if (field === 'orgId') top.orgId = String(value);
        this.ready.push({ at: 'field', orgId: this.orgIdOf(top), field, value });
      });
    } else {
      const org = this.stack.at(-2) as Frame & { at: 'org' };
      this.assemble(t, (value) => this.ready.push({ at: 'item', orgId: this.orgIdOf(org), field: top.field, value }));
    }
  }

  /** This service's export names each organisation first: what comes before its id cannot be placed. */
  private orgIdOf(org: { orgId?: string }): string {
    if (org.orgId === undefined) throw new Error('the answer names an organisation after its resources');
    return org.orgId;
  }

  private assemble(t: Token, deliver: (value: unknown) => void): void {
    const asm = new Assembler();
    asm.consume(t);
    if (asm.done) deliver(asm.current);
    else this.value = { asm, deliver };
  }
}

/** The entries of an answer's body, as they arrive. */
export async function* entriesOf(body: AsyncIterable<Uint8Array>): AsyncGenerator<Entry> {
  const reader = new EntryReader();
  for await (const tokens of tokenBatches(body)) {
    for (const t of tokens) reader.token(t);
    yield* reader.ready.splice(0);
  }
}

/** A spool of one round's organisation entries, sealed under a key held in memory only. */
export class SealedSpool {
  private readonly dir = mkdtempSync(join(tmpdir(), 'identity-transfer-sync-'));
  /** The sealed file (what a reader of the disk sees: no value in clear). */
  readonly file = join(this.dir, 'round.jsonl.sealed');
  private readonly key = randomBytes(32);
  private readonly iv = randomBytes(12);
  private tag?: Buffer;
  /** How many organisations it holds. */
  orgs = 0;

  /** Writes the organisation entries of `entries` (returning the others to `onRoot`), sealed. */
  async write(entries: AsyncIterable<Entry>, onEntry: (e: Entry) => void): Promise<void> {
    const cipher = createCipheriv('aes-256-gcm', this.key, this.iv);
    const self = this;
    async function* lines() {
      let orgId: string | undefined;
      for await (const e of entries) {
        onEntry(e);
        if (e.at === 'root') continue;
        if (e.orgId !== orgId) self.orgs++;
        orgId = e.orgId;
        yield `${JSON.stringify([e.at === 'item' ? 1 : 0, e.orgId, e.field, e.value])}\n`;
      }
    }
    await pipeline(Readable.from(lines()), cipher, createWriteStream(this.file, { mode: 0o600 }));
    this.tag = cipher.getAuthTag();
  }

  /**
   * The import's request body: `prefix`, then `{"orgs":[…]}` rebuilt from the spool (an
   * organisation's entries are contiguous, as the export wrote them, and so is each list), less
   * what `keep` refuses, then `}`.
   */
  async *body(prefix: string, keep: (e: Entry & { at: 'field' | 'item' }) => boolean): AsyncGenerator<Buffer> {
    const decipher = createDecipheriv('aes-256-gcm', this.key, this.iv);
    decipher.setAuthTag(this.tag!);
    const input = createReadStream(this.file).pipe(decipher);
    let orgId: string | undefined;
    let list: string | undefined;
    let first = true;
    yield Buffer.from(`${prefix}{"orgs":[`);
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      const [isItem, org, field, value] = JSON.parse(line) as [number, string, string, unknown];
      const e = { at: isItem ? 'item' : 'field', orgId: org, field, value } as const;
      let out = '';
      if (org !== orgId) {
        // The organisation starts with its id, whatever is kept of the rest.
        out += `${list !== undefined ? ']' : ''}${orgId !== undefined ? '},' : ''}{"orgId":${JSON.stringify(org)}`;
        orgId = org;
        list = undefined;
        first = true;
      }
      if (e.at === 'field' && field === 'orgId') {
        if (out) yield Buffer.from(out);
        continue;
      }
      if (!keep(e)) {
        if (out) yield Buffer.from(out);
        continue;
      }
      if (e.at === 'item') {
        if (list !== field) {
          out += `${list !== undefined ? ']' : ''},${JSON.stringify(field)}:[`;
          list = field;
          first = true;
        }
        out += `${first ? '' : ','}${JSON.stringify(value)}`;
        first = false;
      } else {
        out += `${list !== undefined ? ']' : ''},${JSON.stringify(field)}:${JSON.stringify(value)}`;
        list = undefined;
      }
      yield Buffer.from(out);
    }
    yield Buffer.from(`${list !== undefined ? ']' : ''}${orgId !== undefined ? '}' : ''}]}}`);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
