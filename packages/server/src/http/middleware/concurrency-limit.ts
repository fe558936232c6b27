/**
 * At most `max` requests through a gate at once; the next one is answered at once with 429
 * (code 8, RESOURCE_EXHAUSTED) and `Retry-After`, without reading its body. The slot is held
 * until the handler has answered, so a large body and the work on it count together. The gate
 * is an object of its own so that it outlives an app rebuilt on a key change (server.ts).
 */
import type { MiddlewareHandler } from 'hono';
import { DomainError, GrpcCode } from '../../domain/errors.js';
import type { AppEnv } from '../env.js';
import { respondError } from '../errors.js';

export class ConcurrencyGate {
  private running = 0;
  constructor(readonly max: number) {}

  tryEnter(): boolean {
    if (this.running >= this.max) return false;
    this.running++;
    return true;
  }

  leave(): void {
    this.running--;
  }
}

export function concurrencyLimit(gate: ConcurrencyGate, what: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!gate.tryEnter()) {
      c.header('Retry-After', '1');
      return respondError(c, new DomainError(GrpcCode.ResourceExhausted, 'API-C0nc8', `too many ${what} at once (at most ${gate.max}); retry later`), 429);
    }
    try {
      await next();
    } finally {
      gate.leave();
    }
  };
}
