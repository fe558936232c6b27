import type { MiddlewareHandler } from 'hono';
import { AuthCache } from '../../auth/auth-cache.js';
import { authenticate, type PermissionsCache, type TokenVerifier } from '../../auth/authenticate.js';
import type { Store } from '../../store/store.js';
import type { AppEnv } from '../env.js';

/**
 * Resolves the caller before the route validates its input, as ZITADEL does: an
 * unauthenticated request gets 401 whatever its body.
 */
export function requireAuth(store: Store, verifiers: readonly TokenVerifier[], instanceId: () => string): MiddlewareHandler<AppEnv> {
  const permissions: PermissionsCache = new AuthCache(store);
  return async (c, next) => {
    c.set('ctx', await authenticate(store, verifiers, instanceId(), c.req.header('authorization'), c.req.header('x-service-orgid') ?? c.req.header('x-zitadel-orgid'), permissions));
    await next();
  };
}
