/**
 * Hono's trie router, remembering the routes it matched last.
 *
 * Why: the paths an identity service is called on most are the same few over and over (the token
 * and introspection endpoints, userinfo, discovery and keys, a text or a language list), yet the
 * trie is searched anew for every request: under load that search, and the handler lists and
 * parameter objects it builds, took 8.6 % of the server's CPU on an authenticated GET (perf,
 * BENCHMARKS.md round 10). A match depends only on the method and the path once the routes are
 * added, so the result can be handed out again. Hono reads a match result and never changes it.
 *
 * The trie rather than Hono's faster RegExp router: the RegExp router refuses our routes (a literal
 * path such as `/admin/v1/text/message/verifyemail/{language}` beside `{messageType}`, and
 * `/docs/init.js` beside `/docs/{asset}`), so Hono's default fell back to the trie anyway.
 *
 * Bounded: paths that carry ids are mostly seen once, so the memory is emptied whenever it holds
 * MAX_REMEMBERED matches rather than kept in recency order; the paths called often are back after
 * one search each.
 */
import type { Result, Router } from 'hono/router';
import { TrieRouter } from 'hono/router/trie-router';

const MAX_REMEMBERED = 1000;

export class RememberingRouter<T> implements Router<T> {
  readonly name = 'RememberingRouter';
  readonly #trie = new TrieRouter<T>();
  readonly #matched = new Map<string, Result<T>>();

  add(method: string, path: string, handler: T): void {
    this.#matched.clear();
    this.#trie.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    const key = `${method} ${path}`;
    let result = this.#matched.get(key);
    if (result === undefined) {
      result = this.#trie.match(method, path);
      if (this.#matched.size >= MAX_REMEMBERED) this.#matched.clear();
      this.#matched.set(key, result);
    }
    return result;
  }

  /** How many matches are remembered (for tests). */
  get remembered(): number {
    return this.#matched.size;
  }
}
