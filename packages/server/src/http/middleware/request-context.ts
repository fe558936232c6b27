/**
 * Request id (taken from `x-request-id` when the caller sends a sane one) and one JSON log
 * line per request with method, path, status and duration.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../../log.js';
import type { AppEnv } from '../env.js';

const SANE_ID = /^[\w.:-]{1,128}$/;

/** The caller's `x-request-id` when it is a sane one, else a new id. */
export function requestIdOf(incoming: string | undefined): string {
  return incoming && SANE_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * A REST call made in-process for an RPC (rpc/rest-twin-call.ts), passed as `env.rpcCall`: the RPC
 * logs the call's one line itself (with its RPC name and status code), so this middleware only
 * hands the caller back.
 */
export interface InProcessRpcCall {
  userId?: string;
}

export function requestContext(logger: Logger): MiddlewareHandler<AppEnv> {
  // The request line is logged at info: below that level (LOG_LEVEL=warn) nothing of it is built.
  const logRequests = logger.isEnabled?.('info') ?? true;
  return async (c, next) => {
    const started = logRequests ? performance.now() : 0;
    const requestId = requestIdOf(c.req.header('x-request-id'));
    c.set('requestId', requestId);
    c.set('logger', logger);
    // On the node server, on the response itself: a header set through `c.header` makes Hono build
    // a web Headers object for every response, which @hono/node-server then copies header by
    // header (about 2 % of a text GET's CPU); node merges headers set here with those the
    // response is written with. Elsewhere (app.request in tests) through Hono.
    // An RPC's REST call in process: its answer's headers are not the RPC's (the RPC has its own
    // request id, which it logs), and a header set here would build a Headers object for nothing.
    const { outgoing, rpcCall } = (c.env ?? {}) as { outgoing?: ServerResponse; rpcCall?: InProcessRpcCall };
    if (outgoing) outgoing.setHeader('x-request-id', requestId);
    else if (!rpcCall) c.header('x-request-id', requestId);
    await next();
    if (rpcCall) {
      rpcCall.userId = c.get('ctx')?.caller.userId;
      return;
    }
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
