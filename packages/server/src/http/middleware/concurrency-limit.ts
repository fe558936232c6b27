/**
 * At most `max` requests through this middleware at once; the next one is answered at once with
 * 429 (code 8, RESOURCE_EXHAUSTED) and `Retry-After`, without reading its body. The slot is held
 * until the handler has answered, so a large body and the work on it count together.
 */
import type { MiddlewareHandler } from 'hono';
import { DomainError, GrpcCode } from '../../domain/errors.js';
import type { AppEnv } from '../env.js';
import { respondError } from '../errors.js';

export function concurrencyLimit(max: number, what: string): MiddlewareHandler<AppEnv> {
  let running = 0;
  return async (c, next) => {
    if (running >= max) {
      c.header('Retry-After', '1');
      return respondError(c, new DomainError(GrpcCode.ResourceExhausted, 'API-C0nc8', `too many ${what} at once (at most ${max}); retry later`), 429);
    }
    running++;
    try {
      await next();
    } finally {
      running--;
    }
  };
}
