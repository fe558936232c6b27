/**
 * createApp(deps) → the Hono app. main.ts serves it; tests build the same app in-process
 * and call `app.request(...)` or hand `app.fetch` to the typed client.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { personalAccessTokenVerifier, type TokenVerifier } from './auth/authenticate.js';
import { DomainError, GrpcCode } from './domain/errors.js';
import type { RouteDeps } from './http/deps.js';
import type { AppEnv } from './http/env.js';
import { respondError, toDomainError, validationError } from './http/errors.js';
import { createLogger, type Logger } from './http/log.js';
import { requireAuth } from './http/middleware/authenticate.js';
import { requestContext } from './http/middleware/request-context.js';
import { registerAdminTextRoutes } from './http/routes/admin-texts.js';
import { registerManagementOrgRoutes } from './http/routes/management-orgs.js';
import { registerSystemRoutes } from './http/routes/system.js';
import { loadSpec } from './http/spec.js';
import type { Store } from './store/store.js';

export interface AppDeps {
  store: Store;
  instanceId: string;
  logger?: Logger;
  /** The bundled spec served at /openapi.json (loaded from openapi/ when omitted). */
  spec?: Record<string, unknown>;
  maxBodyBytes?: number;
  /** Extra token kinds, tried after personal access tokens. */
  tokenVerifiers?: TokenVerifier[];
  isShuttingDown?: () => boolean;
}

export function createApp(deps: AppDeps) {
  const logger = deps.logger ?? createLogger('silent');
  const app = new OpenAPIHono<AppEnv>({
    // Route input that fails its schema → 400 naming the field, in the error body.
    defaultHook: (result, c) => {
      if (!result.success) return respondError(c, validationError(result.error, result.target));
    },
  });

  app.use('*', requestContext(logger));
  app.use('*', bodyLimit({ maxSize: deps.maxBodyBytes ?? 1024 * 1024, onError: (c) => respondError(c, new DomainError(GrpcCode.ResourceExhausted, 'API-B0dy5', 'request body too large'), 413) }));

  const verifiers = [personalAccessTokenVerifier(deps.store), ...(deps.tokenVerifiers ?? [])];
  const routeDeps: RouteDeps = {
    store: deps.store,
    auth: requireAuth(deps.store, verifiers, () => deps.instanceId),
  };
  registerSystemRoutes(app, { ...routeDeps, spec: deps.spec ?? loadSpec(), isShuttingDown: deps.isShuttingDown ?? (() => false) });
  registerAdminTextRoutes(app, routeDeps);
  registerManagementOrgRoutes(app, routeDeps);

  const knownPaths = app.routes
    .filter((r) => r.method !== 'ALL')
    .map((r) => ({ method: r.method, pattern: pathPattern(r.path) }));
  app.notFound((c) => {
    const allowed = [...new Set(knownPaths.filter((r) => r.pattern.test(c.req.path)).map((r) => r.method))];
    if (allowed.length > 0) {
      c.header('Allow', allowed.join(', '));
      return respondError(c, new DomainError(GrpcCode.Unimplemented, 'API-M3th0', 'Method Not Allowed'), 405);
    }
    return respondError(c, new DomainError(GrpcCode.NotFound, 'API-N0tF0', 'Not Found'));
  });

  app.onError((err, c) => {
    const { error, status } = toDomainError(err);
    if (error.code === GrpcCode.Internal) c.var.logger?.error('unhandled error', { requestId: c.var.requestId, error: String((err as Error)?.stack ?? err) });
    return respondError(c, error, status);
  });

  return app;
}

export type App = ReturnType<typeof createApp>;

/** Hono path (`/a/:id`) → a regex for that path, to answer 405 on a known path. */
function pathPattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}
