/**
 * hono's bodyLimit without its per-request cost on Node. hono's version starts with
 * `c.req.raw.body`; on @hono/node-server touching `body` builds a complete web Request with a
 * stream for every request (GETs included), and the JSON body is then read through web streams
 * instead of node-server's direct read (about a sixth of a text write's CPU in the bench
 * profile). Where hono decides from the headers alone, this decides the same way without
 * touching the body; everything else (a chunked body) is handed to hono's middleware.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit as honoBodyLimit } from 'hono/body-limit';

type BodyLimitOptions = Parameters<typeof honoBodyLimit>[0] & {
  /**
   * Requests the limit does not apply to (their route never reads a body). Asked only when the
   * limit would act, so a body declared within the limit costs nothing more.
   */
  exempt?: (c: Context) => boolean;
};

export function bodyLimit(options: BodyLimitOptions): MiddlewareHandler {
  const streaming = honoBodyLimit(options);
  return async (c, next) => {
    // hono: a GET or HEAD request has no body (`raw.body` is null), so it is never limited.
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      if (Number.parseInt(length || '0', 10) <= options.maxSize) return next();
      if (options.exempt?.(c)) return next();
      if (options.onError) return options.onError(c);
    }
    if (options.exempt?.(c)) return next();
    return streaming(c, next);
  };
}
