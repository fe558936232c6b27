/**
 * Request id (taken from `x-request-id` when the caller sends a sane one) and one JSON log
 * line per request with method, path, status and duration.
 */
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.js';
import type { Logger } from '../log.js';

const SANE_ID = /^[\w.:-]{1,128}$/;

export function requestContext(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && SANE_ID.test(incoming) ? incoming : randomUUID();
    c.set('requestId', requestId);
    c.set('logger', logger);
    c.header('x-request-id', requestId);
    await next();
    logger.info('request', {
      requestId,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      ...(c.var.ctx ? { userId: c.var.ctx.caller.userId } : {}),
    });
  };
}
