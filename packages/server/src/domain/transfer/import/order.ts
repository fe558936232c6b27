/**
 * The order organisations are imported in. Each organisation is its own transaction, and a user
 * grant or membership may name a user of another organisation of the same document (a project's
 * grants to users of a partner organisation). Importing the user's organisation first makes such
 * references resolvable. Where organisations reference each other both ways no order serves both:
 * the references of the organisation imported first to users of one imported after it are
 * deferred (importedLater) and imported once all organisations are in.
 *
 * What this needs of an organisation is a few bytes per user, whatever its ids look like
 * (ARCHITECTURE.md, "Imports in bounded memory"): a 32-bit key of each user id it brings and of
 * each user id its grants and memberships name (OrgOutline), collected while the document is
 * read. A million users are 4 MiB of keys and 8 MiB of directory, where the ids themselves (up to
 * 64 characters or more, as JavaScript strings in objects) took ~100 MiB. Two ids may share a key:
 * an organisation is then ordered, or a reference deferred, as if it named the other one too,
 * which changes when a reference is imported, never whether (a deferred reference is imported
 * after every organisation, against the users then on the target).
 */
import { invalidArgument } from '../../errors.js';
import type { DataOrg } from '../document.js';

/** FNV-1a over the id's UTF-16 code units: 32 bits, cheap, the same in every thread. */
export function userKey(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The keys of an organisation's users and of the users its grants and memberships name. */
export interface OrgOutline {
  userKeys: Uint32Array;
  referenceKeys: Uint32Array;
}

/** A list of 32-bit keys that grows by doubling (no JavaScript value per entry). */
class KeyList {
  private keys = new Uint32Array(16);
  length = 0;

  push(key: number): void {
    if (this.length === this.keys.length) {
      const bigger = new Uint32Array(this.keys.length * 2);
      bigger.set(this.keys);
      this.keys = bigger;
    }
    this.keys[this.length++] = key;
  }

  /** The keys, in an array of their own size. */
  done(): Uint32Array {
    return this.keys.slice(0, this.length);
  }
}

/** Collects one organisation's outline as its parts are read. */
export class OutlineBuilder {
  private readonly users = new KeyList();
  private readonly references = new KeyList();

  addUser(userId: string): void {
    this.users.push(userKey(userId));
  }

  addReference(userId: string): void {
    this.references.push(userKey(userId));
  }

  get userCount(): number {
    return this.users.length;
  }

  build(): OrgOutline {
    return { userKeys: this.users.done(), referenceKeys: this.references.done() };
  }
}

/** The lists whose entries name users of the document: grants and memberships. */
export const REFERENCE_LISTS = ['userGrants', 'orgMembers', 'projectMembers'] as const;

/** The outline of an organisation held whole in memory (a version-1 document, or one not read as a stream). */
export function outlineOf(org: DataOrg): OrgOutline {
  const builder = new OutlineBuilder();
  for (const u of org.humanUsers ?? []) builder.addUser(u.userId);
  for (const u of org.machineUsers ?? []) builder.addUser(u.userId);
  for (const key of REFERENCE_LISTS) for (const r of (org[key] ?? []) as { userId: string }[]) builder.addReference(r.userId);
  return builder.build();
}

/**
 * Organisations one import may hold: a directory entry is `key × ORG_SLOTS + organisation`, exact
 * in a double while key < 2^32 and organisation < 2^21.
 */
export const MAX_IMPORT_ORGS = 2 ** 21;
const ORG_SLOTS = MAX_IMPORT_ORGS;

export interface ImportPlan {
  /** Indexes of the document's organisations, in the order they are imported. */
  order: number[];
  /**
   * Every user key of the document with the position (in `order`) of its organisation,
   * `key × ORG_SLOTS + position`, ascending by key (empty for fewer than two organisations).
   */
  directory: Float64Array;
}

/**
 * The order of `outlines` (referenced organisations first, otherwise the document's order) and the
 * directory importedLater reads. Runs where the document is read (the import's reader thread):
 * sorting a million keys takes ~100 ms, which the thread answering requests must not spend.
 */
export function planImport(outlines: readonly OrgOutline[]): ImportPlan {
  if (outlines.length > MAX_IMPORT_ORGS) {
    throw invalidArgument('IMPORT-0rg5x', `the document holds ${outlines.length} organisations; one import takes at most ${MAX_IMPORT_ORGS}: split it into several imports`);
  }
  // One organisation has no other to come before it, nor after it.
  if (outlines.length < 2) return { order: outlines.map((_, i) => i), directory: new Float64Array(0) };
  let total = 0;
  for (const o of outlines) total += o.userKeys.length;
  const directory = new Float64Array(total);
  let n = 0;
  for (let i = 0; i < outlines.length; i++) for (const key of outlines[i].userKeys) directory[n++] = key * ORG_SLOTS + i;
  directory.sort();

  const dependsOn = outlines.map((outline, i) => {
    const owners = new Set<number>();
    for (const key of outline.referenceKeys) {
      for (let at = firstOfKey(directory, key); at < directory.length && Math.floor(directory[at] / ORG_SLOTS) === key; at++) {
        const owner = directory[at] % ORG_SLOTS;
        if (owner !== i) owners.add(owner);
      }
    }
    return [...owners].sort((a, b) => a - b);
  });
  const order = dependenciesFirst(dependsOn);

  // From organisation to position: each key keeps its place, so the directory stays ordered by key.
  const position = new Array<number>(outlines.length);
  order.forEach((orgIndex, at) => (position[orgIndex] = at));
  for (let at = 0; at < directory.length; at++) {
    const key = Math.floor(directory[at] / ORG_SLOTS);
    directory[at] = key * ORG_SLOTS + position[directory[at] % ORG_SLOTS];
  }
  return { order, directory };
}

/**
 * Each organisation after those it depends on, else in document order: a depth-first walk, its
 * post-order. Iterative, so that a chain of many thousand organisations cannot run out of stack.
 * Where organisations depend on each other in a cycle the walk stops at the one on its path.
 */
function dependenciesFirst(dependsOn: number[][]): number[] {
  const order: number[] = [];
  const state = new Uint8Array(dependsOn.length); // 0 new, 1 on the current path, 2 done
  for (let root = 0; root < dependsOn.length; root++) {
    if (state[root] !== 0) continue;
    const path: { org: number; next: number }[] = [{ org: root, next: 0 }];
    state[root] = 1;
    while (path.length) {
      const top = path[path.length - 1];
      const deps = dependsOn[top.org];
      if (top.next < deps.length) {
        const dep = deps[top.next++];
        if (state[dep] === 0) {
          state[dep] = 1;
          path.push({ org: dep, next: 0 });
        }
        continue;
      }
      state[top.org] = 2;
      order.push(top.org);
      path.pop();
    }
  }
  return order;
}

/** The first index of `directory` whose key is `key` or greater. */
function firstOfKey(directory: Float64Array, key: number): number {
  const bound = key * ORG_SLOTS;
  let lo = 0;
  let hi = directory.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (directory[mid] < bound) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** For the organisation at `position` of the plan's order: whether a user id belongs to an organisation after it. */
export function importedLater(plan: ImportPlan, position: number): (userId: string) => boolean {
  const { directory } = plan;
  // The last organisation (and so a single one) has none after it.
  if (directory.length === 0 || position === plan.order.length - 1) return () => false;
  return (userId) => {
    const key = userKey(userId);
    for (let at = firstOfKey(directory, key); at < directory.length && Math.floor(directory[at] / ORG_SLOTS) === key; at++) {
      if (directory[at] % ORG_SLOTS > position) return true;
    }
    return false;
  };
}
