/**
 * A request's body as it arrives, with backpressure, for routes that stream it to disk (the
 * import, import jobs). @hono/node-server makes the web body of a request with Readable.toWeb,
 * which sets node's stream flowing at once and queues whatever arrives while its reader waits for
 * the disk: a 96 MiB body was held whole. So the node stream is read where the body is that
 * stream's (the request as it came in, nobody reading it yet); elsewhere (a request made in the
 * process, as the RPC gateway makes, and tests) the web body. Nothing here may touch
 * `c.req.raw.body` first: that alone starts the web body. Undefined: the request has no body.
 */
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';

export function requestBody(c: Context): AsyncIterable<Uint8Array> | undefined {
  const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
  const url = new URL(c.req.raw.url);
  const untouched = incoming && !incoming.readableDidRead && incoming.readableFlowing === null;
  if (untouched && incoming.method === c.req.raw.method && incoming.url === url.pathname + url.search) {
    return incoming.headers['content-length'] === '0' ? undefined : (incoming as AsyncIterable<Uint8Array>);
  }
  return (c.req.raw.body ?? undefined) as AsyncIterable<Uint8Array> | undefined;
}
