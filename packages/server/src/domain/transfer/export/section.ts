/**
 * How each kind's module (beside this file, as import/ has one per kind) writes its part of one
 * organisation's entry: as JSON text, `,"field":value` after the fields before it, a list left out
 * when empty like every zero value. Lists that grow with the organisation (users, their grants,
 * metadata and links) are read in keyset pages and written in chunks that die young.
 */
import { setImmediate } from 'node:timers/promises';
import type { SecretBox } from '../../../secrets/secret-box.js';
import type { Repositories } from '../../../store/store.js';
import type { ExportRequest } from '../request.js';

export type ExportedOrg = Awaited<ReturnType<Repositories['transfer']['orgsToExport']>>[number];

/** What a section reads and decides by: one organisation of one export. */
export interface OrgExport {
  read: Repositories;
  req: ExportRequest;
  org: ExportedOrg;
  /** Every organisation of this export: references to another go only when it goes too. */
  orgIds: string[];
  /** Opens TOTP secrets (`withOtp`) and identity providers' client secrets (`withPasswords`). */
  secrets: SecretBox;
  /** The instance's domain, the suffix of the domain it generates for an organisation. */
  instanceDomain: string;
  /** Throws once the export's deadline has passed (checked before each page). */
  deadline: () => void;
}

/** A part of the organisation's entry: the text of one field or a few, in the document's order (org-entry.ts). */
export type Section = (o: OrgExport) => AsyncIterable<string>;

export const PAGE = 1000;

/**
 * About the most characters in one chunk of the document. V8 allocates a string over 128 KiB (64 Ki
 * characters of a two-byte string) in its large-object space, and a large object still alive at a
 * scavenge moves to the old generation at once, where only a full mark-compact frees it. A page
 * of 1,000 users as one ~340 KiB string was alive at most scavenges, so the old generation grew
 * by one page per scavenge, ~60 MiB over 1,000,000 users, before V8 collected it (issue 14).
 * Chunks of 32 Ki characters are ordinary young objects and die in the scavenge after their write.
 */
const CHUNK_CHARS = 32 * 1024;

/** `,"name":value`: one field after the ones before it. */
export const field = (name: string, value: unknown) => `,${JSON.stringify(name)}:${JSON.stringify(value)}`;

/** A list field written whole (lists that do not grow with the users), left out when empty. */
export function* listField(name: string, items: readonly unknown[]): Generator<string> {
  if (items.length) yield field(name, items);
}

/**
 * The rows' items as JSON separated by commas, `head` before the first, in chunks of about
 * CHUNK_CHARS characters; a row whose item is undefined is left out. Each item is made as it is
 * written, so it dies young rather than living as long as its page.
 */
function* jsonChunks<R>(head: string, rows: readonly R[], toItem: (row: R) => unknown): Generator<string, boolean> {
  let chunk = '';
  let any = false;
  for (const row of rows) {
    const item = toItem(row);
    if (item === undefined) continue;
    chunk += (any ? ',' : head) + JSON.stringify(item);
    any = true;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
  return any;
}

/**
 * A list field of the organisation read in keyset pages of PAGE rows (`readPage` is given the last
 * row read, none for the first page) and written page by page, so no more than a page is held
 * whatever the organisation's size. `itemsOf` reads what a page needs besides its rows and gives
 * the item of each row (undefined: none). The list is opened with its first item and left out
 * when empty, like every zero value.
 */
export async function* pagedList<R>(
  name: string,
  readPage: (after: R | undefined) => Promise<R[]>,
  itemsOf: (page: R[]) => ((row: R) => unknown) | Promise<(row: R) => unknown>,
  checkDeadline: () => void,
): AsyncGenerator<string> {
  let opened = false;
  let after: R | undefined;
  for (;;) {
    // A turn of the event loop before each page. On SQLite (synchronous reads) an export would
    // otherwise run from its first page to its last in one task while the socket takes its
    // writes: no other request answered, and none of V8's GC tasks (starting incremental marking
    // at its soft limit, finalising it) run. A PostgreSQL read already waits for the network.
    await setImmediate();
    checkDeadline();
    const page = await readPage(after);
    if (page.length === 0) break;
    if (yield* jsonChunks(opened ? ',' : `,${JSON.stringify(name)}:[`, page, await itemsOf(page))) opened = true;
    after = page[page.length - 1];
    if (page.length < PAGE) break;
  }
  if (opened) yield ']';
}
