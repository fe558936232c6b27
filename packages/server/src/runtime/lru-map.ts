/**
 * A map of at most `maxEntries` that forgets its least recently used entry first: a `get` or a
 * `set` makes an entry the most recent.
 *
 * Why not a Map re-inserted on every use (delete the key, set it again: the Map's order is then
 * the order of use): V8 leaves each deleted entry in its key's bucket chain until the table is
 * rebuilt, so a key used over and over makes its own lookups walk a longer and longer chain. On
 * Node 24 and 20 one hit cost 2.6 µs with 2,000 entries and 25 µs with 10,000, more than the
 * request it served (a resource server introspecting one token, an integration's one PAT). Here
 * the Map is written only when a key comes or goes; the order of use is a linked list beside it.
 */
interface Node<K, V> {
  key: K;
  value: V;
  /** Towards the least recently used. */
  older: Node<K, V> | undefined;
  /** Towards the most recently used. */
  newer: Node<K, V> | undefined;
}

export class LruMap<K, V> {
  private readonly nodes = new Map<K, Node<K, V>>();
  private oldest: Node<K, V> | undefined;
  private newest: Node<K, V> | undefined;

  /** `maxEntries` 0: nothing is kept (a cache turned off). */
  constructor(private readonly maxEntries: number) {
    if (!(maxEntries >= 0)) throw new Error('an LruMap holds zero entries or more');
  }

  /** The value, which becomes the most recently used; undefined when the key is not kept. */
  get(key: K): V | undefined {
    const node = this.nodes.get(key);
    if (!node) return undefined;
    this.makeNewest(node);
    return node.value;
  }

  /** Keeps the value as the most recently used, forgetting the least recently used past the bound. */
  set(key: K, value: V): void {
    if (this.maxEntries === 0) return;
    const node = this.nodes.get(key);
    if (node) {
      node.value = value;
      this.makeNewest(node);
      return;
    }
    const added: Node<K, V> = { key, value, older: this.newest, newer: undefined };
    if (this.newest) this.newest.newer = added;
    this.newest = added;
    this.oldest ??= added;
    this.nodes.set(key, added);
    if (this.nodes.size > this.maxEntries && this.oldest) this.delete(this.oldest.key);
  }

  delete(key: K): boolean {
    const node = this.nodes.get(key);
    if (!node) return false;
    this.unlink(node);
    this.nodes.delete(key);
    return true;
  }

  get size(): number {
    return this.nodes.size;
  }

  private makeNewest(node: Node<K, V>): void {
    if (node === this.newest) return;
    this.unlink(node);
    node.older = this.newest;
    node.newer = undefined;
    if (this.newest) this.newest.newer = node;
    this.newest = node;
    this.oldest ??= node;
  }

  private unlink(node: Node<K, V>): void {
    if (node.older) node.older.newer = node.newer;
    else this.oldest = node.newer;
    if (node.newer) node.newer.older = node.older;
    else this.newest = node.older;
    node.older = undefined;
    node.newer = undefined;
  }
}
