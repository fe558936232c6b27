/**
 * Probes, the spec and its interactive reference: openapi/paths/system.yaml.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { RouteDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { routesOf } from '../operation.js';

export interface SystemDeps extends RouteDeps {
  spec: Record<string, unknown>;
  /** True once SIGTERM arrived: readiness fails so balancers stop sending traffic. */
  isShuttingDown: () => boolean;
}

/**
 * swagger-ui-dist's assets, found through its package.json: importing the package itself would
 * load its whole browser bundle into the server at start.
 */
const SWAGGER_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const SWAGGER_ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js']);

export function registerSystemRoutes(app: OpenAPIHono<AppEnv>, deps: SystemDeps) {
  const { store, spec, isShuttingDown } = deps;
  const route = routesOf(app, deps);

  route('Healthz', (c) => c.json({ status: 'ok' }, 200));

  // Not ready → 503 with the same Status body as 200.
  route('Readyz', async (c) => {
    if (isShuttingDown()) return c.json({ status: 'shutting down' }, 503);
    try {
      await store.ping();
    } catch {
      return c.json({ status: 'store unreachable' }, 503);
    }
    return c.json({ status: 'ok' }, 200);
  });

  route('GetOpenApiDocument', (c) => c.json(spec, 200));

  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>identity-service API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="api-reference"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>`;
  const init = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#api-reference', deepLinking: true, persistAuthorization: true });`;

  route('GetApiReference', (c) => c.html(page, 200));

  // Static assets of the reference page; not API operations, so not in the spec.
  app.get('/docs/init.js', (c) => c.body(init, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.get('/docs/:asset', (c, next) => {
    const asset = c.req.param('asset');
    if (!SWAGGER_ASSETS.has(asset)) return next();
    const type = asset.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';
    return c.body(readFileSync(join(SWAGGER_DIR, asset)), 200, { 'content-type': type, 'cache-control': 'public, max-age=3600' });
  });
}
