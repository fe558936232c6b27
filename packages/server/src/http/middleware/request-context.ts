/**
 * Request id (taken from `x-request-id` when the caller sends a sane one) and one JSON log
 * line per request with method, path, status and duration.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.js';
import type { Logger } from '../../log.js';

const SANE_ID = /^[\w.:-]{1,128}$/;

export function requestContext(logger: Logger): MiddlewareHandler<AppEnv> {
  // The request line is logged at info: below that level (LOG_LEVEL=warn) nothing of it is built.
  const logRequests = logger.isEnabled?.('info') ?? true;
  return async (c, next) => {
    const started = logRequests ? performance.now() : 0;
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && SANE_ID.test(incoming) ? incoming : randomUUID();
    c.set('requestId', requestId);
    c.set('logger', logger);
    // On the node server, on the response itself: a header set through `c.header` makes Hono build
    // a web Headers object for every response, which @hono/node-server then copies header by
    // header (about 2 % of a text GET's CPU); node merges headers set here with those the
    // response is written with. Elsewhere (app.request in tests) through Hono.
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (outgoing) outgoing.setHeader('x-request-id', requestId);
    else c.header('x-request-id', requestId);
    await next();
    if (!logRequests) return;
    logger.info('request', {
      requestId,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      ...(c.get('ctx') ? { userId: c.get('ctx').caller.userId } : {}),
    });
  };
}
