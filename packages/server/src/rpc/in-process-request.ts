/**
 * The request an RPC hands the Hono app in process: what Hono and the routes read of a Request
 * (url, method, headers, the body as text, JSON or bytes, the signal) answered from plain values,
 * and everything else from a real Request built only when something asks for it.
 *
 * Why: a real `new Request(url, { body })` is undici's, which wraps the body in a web stream and
 * links a signal of its own; it cost about a tenth of an RPC's CPU in the bench profile
 * (BENCHMARKS.md round 15). REST requests avoid it the same way: @hono/node-server reads the body
 * straight from node's request unless a web stream is asked for. The declared `content-length`
 * lets the body limit decide from the headers (http/middleware/body-limit.ts) as it does for REST.
 */
import { inspect } from 'node:util';

const encoder = new TextEncoder();

/** Request members served from the real Request, built on first use (node-server's list, the same idea). */
const DEFERRED_PROPERTIES = ['body', 'bodyUsed', 'cache', 'credentials', 'destination', 'integrity', 'mode', 'redirect', 'referrer', 'referrerPolicy', 'keepalive', 'duplex'] as const;
const DEFERRED_METHODS = ['blob', 'clone', 'formData', 'bytes'] as const;

class InProcessRequest {
  #real: Request | undefined;

  constructor(
    readonly url: string,
    readonly method: string,
    readonly headers: Headers,
    private readonly bodyText: string | undefined,
    readonly signal: AbortSignal,
  ) {}

  /** The real Request, for what this one does not answer itself. */
  real(): Request {
    return (this.#real ??= new Request(this.url, { method: this.method, headers: this.headers, body: this.bodyText, signal: this.signal }));
  }

  text(): Promise<string> {
    return Promise.resolve(this.bodyText ?? '');
  }

  json(): Promise<unknown> {
    return this.text().then((text) => JSON.parse(text) as unknown);
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = encoder.encode(this.bodyText ?? '');
    return Promise.resolve(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
  }
}

for (const name of DEFERRED_PROPERTIES) {
  Object.defineProperty(InProcessRequest.prototype, name, {
    get(this: InProcessRequest) {
      return (this.real() as unknown as Record<string, unknown>)[name];
    },
  });
}
for (const name of DEFERRED_METHODS) {
  Object.defineProperty(InProcessRequest.prototype, name, {
    value(this: InProcessRequest, ...args: unknown[]) {
      const real = this.real() as unknown as Record<string, (...a: unknown[]) => unknown>;
      return real[name].apply(real, args);
    },
  });
}
// `instanceof Request` holds, as it does for node-server's requests.
Object.setPrototypeOf(InProcessRequest.prototype, Request.prototype);

/** HTTP's whitespace, which undici's Headers strips from the ends of a value. */
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

/**
 * The headers of a request made in process: the few the gateway passes on (rest-twin-call.ts),
 * kept in a Map under their lower-case names. Why: undici's Headers checks and converts every
 * name and value on each `set` and `get`; the five sets and the route's reads cost ~1.5 µs of a
 * gRPC call (a profile of the bench's `rpc` target, BENCHMARKS.md round 30), and these names and
 * values were already checked by node's parser or connect's Headers. `instanceof Headers` holds,
 * and undici (a real Request, `new Headers(these)`) reads them as the iterable of pairs they are.
 */
export class InProcessHeaders {
  readonly #values = new Map<string, string>();

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  set(name: string, value: string): void {
    this.#values.set(name.toLowerCase(), String(value).replace(EDGE_WHITESPACE, ''));
  }

  append(name: string, value: string): void {
    const previous = this.get(name);
    this.set(name, previous === null ? value : `${previous}, ${value}`);
  }

  delete(name: string): void {
    this.#values.delete(name.toLowerCase());
  }

  getSetCookie(): string[] {
    return [];
  }

  /** In name order, as Headers iterates. */
  entries(): IterableIterator<[string, string]> {
    return [...this.#values].sort(([a], [b]) => (a < b ? -1 : 1))[Symbol.iterator]();
  }

  keys(): IterableIterator<string> {
    return [...this.entries()].map(([name]) => name)[Symbol.iterator]();
  }

  values(): IterableIterator<string> {
    return [...this.entries()].map(([, value]) => value)[Symbol.iterator]();
  }

  forEach(callback: (value: string, name: string, headers: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this.entries()) callback.call(thisArg, value, name, this as unknown as Headers);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  /** undici's own would read its private list, which this has not: a logged request must not throw. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `Headers ${inspect(Object.fromEntries(this.entries()))}`;
  }
}
Object.setPrototypeOf(InProcessHeaders.prototype, Headers.prototype);

/** A request for `app.fetch` with a JSON body (or none), `content-length` declared. */
export function inProcessRequest(url: string, method: string, headers: Headers, body: string | undefined, signal: AbortSignal): Request {
  if (body !== undefined) headers.set('content-length', String(Buffer.byteLength(body)));
  return new InProcessRequest(url, method, headers, body, signal) as unknown as Request;
}

/**
 * The description of the symbol under which @hono/node-server's lightweight Response keeps
 * `[status, body, headers]` until something asks it for more (node-server's own writer reads it there).
 */
const LIGHTWEIGHT_CACHE = 'cache';
let lightweightCache: symbol | undefined;

/**
 * The text of an answer of the app called in process. Its routes answer with node-server's
 * lightweight Response (node-server replaces the global one when the server starts), whose `text()`
 * first builds undici's Response around a web stream: ~8 % of an RPC's CPU (BENCHMARKS.md round 21).
 * A string body is read from the lightweight cache instead, as node-server's writer reads REST
 * answers; anything else (a stream, or a node-server that no longer keeps it) through `text()`.
 * test/rpc/in-process-request.test.ts notices when the cache is no longer found.
 */
export function answerText(response: Response): Promise<string> {
  lightweightCache ??= Object.getOwnPropertySymbols(response).find((key) => key.description === LIGHTWEIGHT_CACHE);
  const cached = lightweightCache && (response as unknown as Record<symbol, unknown>)[lightweightCache];
  if (Array.isArray(cached) && typeof cached[1] === 'string') return Promise.resolve(cached[1]);
  return response.text();
}
