/**
 * createApp(deps) → the Hono app. main.ts serves it; tests build the same app in-process
 * and call `app.request(...)` or hand `app.fetch` to the typed client.
 */
import { OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { Handler, MiddlewareHandler } from 'hono';
import { personalAccessTokenVerifier, type TokenVerifier } from './auth/authenticate.js';
import { DomainError, GrpcCode } from './domain/errors.js';
import type { DomainCheckOptions } from './domain/orgs/domains.js';
import { SlidingWindowLimit } from './domain/rate-limit.js';
import { TEST_SENDS_PER_MINUTE } from './domain/texts/preview.js';
import { findUnstorableText } from './domain/unstorable-text.js';
import type { RouteDeps } from './http/deps.js';
import type { AppEnv } from './http/env.js';
import { bodyTooLarge, respondError, toDomainError, unstorableTextError, validationError } from './http/errors.js';
import { requireAuth } from './http/middleware/authenticate.js';
import { bodyLimit } from './http/middleware/body-limit.js';
import { ConcurrencyGate } from './http/middleware/concurrency-limit.js';
import { requestContext } from './http/middleware/request-context.js';
import { RememberingRouter } from './http/remembering-router.js';
import { registerAdminEventRoutes } from './http/routes/admin-events.js';
import { registerAdminIdpRoutes } from './http/routes/admin-idps.js';
import { type ImportJobSettings, registerAdminImportJobRoutes, START_IMPORT_JOB_PATH } from './http/routes/admin-import-jobs.js';
import { registerAdminMemberRoutes } from './http/routes/admin-members.js';
import { registerAdminOrgRoutes } from './http/routes/admin-orgs.js';
import { registerAdminSmtpRoutes } from './http/routes/admin-smtp.js';
import { registerAdminTextRoutes, registerManagementTextRoutes } from './http/routes/admin-texts.js';
import { DEFAULT_MAX_CONCURRENT_IMPORTS, DEFAULT_MAX_IMPORT_BODY_BYTES, IMPORT_PATH, registerAdminTransferRoutes } from './http/routes/admin-transfer.js';
import { registerAuthUserAuthFactorRoutes } from './http/routes/auth-user-auth-factors.js';
import type { OidcRouteDeps } from './http/routes/login-flow.js';
import { registerMailPageRoutes } from './http/routes/login-mail.js';
import { registerLoginTextRoutes } from './http/routes/login-texts.js';
import { registerManagementAppRoutes } from './http/routes/management-apps.js';
import { registerManagementChangeRoutes } from './http/routes/management-changes.js';
import { registerManagementIdpRoutes } from './http/routes/management-idps.js';
import { registerManagementOrgDomainRoutes } from './http/routes/management-org-domains.js';
import { registerManagementOrgMemberRoutes } from './http/routes/management-org-members.js';
import { registerManagementOrgRoutes } from './http/routes/management-orgs.js';
import { registerManagementProjectGrantRoutes } from './http/routes/management-project-grants.js';
import { registerManagementProjectRoutes } from './http/routes/management-projects.js';
import { registerManagementUserAuthFactorRoutes } from './http/routes/management-user-auth-factors.js';
import { registerManagementUserChangeRoutes } from './http/routes/management-user-changes.js';
import { registerManagementUserEmailRoutes } from './http/routes/management-user-email.js';
import { registerManagementUserGrantRoutes } from './http/routes/management-user-grants.js';
import { registerManagementUserIdpLinkRoutes } from './http/routes/management-user-idp-links.js';
import { registerManagementUserKeyRoutes } from './http/routes/management-user-keys.js';
import { registerManagementUserMetadataRoutes } from './http/routes/management-user-metadata.js';
import { registerManagementUserPatRoutes } from './http/routes/management-user-pats.js';
import { registerManagementUserSecretRoutes } from './http/routes/management-user-secrets.js';
import { registerManagementUserStateRoutes } from './http/routes/management-user-state.js';
import { registerManagementUserRoutes } from './http/routes/management-users.js';
import { registerMessageTextPreviewRoutes } from './http/routes/message-text-previews.js';
import { registerMessageTextRoutes } from './http/routes/message-texts.js';
import { registerOidcRoutes } from './http/routes/oidc-ui.js';
import { registerPolicyRoutes } from './http/routes/policies.js';
import { registerStartPageRoutes } from './http/routes/start-pages.js';
import { registerSystemRoutes } from './http/routes/system.js';
import { loadSpec } from './http/spec.js';
import { withStrictJsonBody } from './http/strict-bodies.js';
import { requestValidator, type ValidationHook } from './http/validate-request.js';
import { createLogger, type Logger } from './log.js';
import { processSecretBox, type SecretBox } from './secrets/secret-box.js';
import type { Store } from './store/store.js';
import { messagePage } from './ui/pages.js';

export interface AppDeps {
  store: Store;
  instanceId: string;
  logger?: Logger;
  /** The bundled spec served at /openapi.json (loaded from openapi/ when omitted). */
  spec?: Record<string, unknown>;
  maxBodyBytes?: number;
  /** Largest body of POST /admin/v1/import (default 512 MiB, spooled to disk); it has its own limit instead of maxBodyBytes. */
  maxImportBodyBytes?: number;
  /** Import requests served at once (default 2); the next one answers 429 before its body is read. */
  maxConcurrentImports?: number;
  /** The gate behind maxConcurrentImports, when apps rebuilt in one process must share it (server.ts). */
  importGate?: ConcurrencyGate;
  /** Where import jobs' requests are spooled, and who to tell that one was started; without it StartImportJob answers 503. */
  importJobs?: ImportJobSettings;
  /** Told when an organisation's removal was started: its worker removes the rest (background/org-removal-worker.ts). Without it, nothing does until one runs. */
  onOrgRemovalStarted?: () => void;
  /** Cloud Storage API endpoint for export/import (an emulator in tests); Google's when omitted. */
  gcsEndpoint?: string;
  /** Extra token kinds, tried after personal access tokens. */
  tokenVerifiers?: TokenVerifier[];
  /** The login page and userinfo of the authorization server (server.ts passes them; in-process API tests do not). */
  oidc?: OidcRouteDeps;
  isShuttingDown?: () => boolean;
  /**
   * Seals and opens secrets at rest with the operator's key. main.ts always passes it; when omitted
   * (tests) every app of the process shares one random key, so handlers on one store agree.
   */
  secrets?: SecretBox;
  /** How organisation domains are validated (default: https, ZITADEL's; tests use http on loopback). */
  domainChecks?: DomainCheckOptions;
  /** The base of links in mails (EXTERNAL_URL; server.ts passes its issuer). */
  externalUrl?: string;
  /** The mail-drop folder (MAIL_DROP_DIR) a test send writes to while no SMTP provider is active; without it, such a test send answers 503. */
  mailDropDir?: string;
  /** The test sends' budget, when apps rebuilt in one process must share it (server.ts). */
  testSends?: SlidingWindowLimit;
}

/** Default largest request body (MAX_BODY_BYTES); the import has its own. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export function createApp(deps: AppDeps) {
  const logger = deps.logger ?? createLogger('silent');
  const app = new OpenAPIHono<AppEnv>({ router: new RememberingRouter() });
  // Route input that fails its schema, or holds text no store can keep → 400 naming the field.
  const validationHook: ValidationHook = (result, c) => {
    // On failure `data` is the input as sent: the message can then say what was sent.
    if (!result.success) return respondError(c, validationError(result.error, result.target, result.data));
    const unstorable = findUnstorableText(result.data);
    if (unstorable) return respondError(c, unstorableTextError(unstorable, result.target));
  };

  // Conventions of every operation, applied here once rather than by each route: its JSON body
  // refuses fields it does not define (strict-bodies.ts). An operation without a body never reads
  // one, so the body limit (and its 413, which the spec documents on every operation with a body)
  // is not applied to it.
  // The operation goes into the OpenAPI registry as @hono/zod-openapi's `openapi` would put it;
  // its input is validated by one middleware (http/validate-request.ts) instead of that method's
  // chain of one per input.
  const bodyless: { method: string; pattern: RegExp }[] = [];
  const withBody: { method: string; pattern: RegExp }[] = [];
  app.openapi = ((config: RouteConfig, handler: Handler, hook?: ValidationHook) => {
    (config.request?.body ? withBody : bodyless).push({ method: config.method.toUpperCase(), pattern: specPathPattern(config.path) });
    const { middleware, hide, streamedBody, ...route } = withStrictJsonBody(config) as RouteConfig & { streamedBody?: boolean };
    if (!hide) app.openAPIRegistry.registerPath(route);
    const validate = requestValidator(route, hook ?? validationHook, { body: !streamedBody });
    const handlers = [...(middleware ? [middleware].flat() : []), ...(validate ? [validate] : []), handler] as MiddlewareHandler[];
    app.on(route.method.toUpperCase(), route.path.replaceAll(/\/{(.+?)}/g, '/:$1'), ...(handlers as [MiddlewareHandler]));
    return app;
  }) as unknown as typeof app.openapi;
  // A path can match both kinds (DELETE …/metadata/_bulk takes a body, DELETE …/metadata/{key} none):
  // then the limit applies.
  const matches = (list: typeof bodyless, method: string, path: string) => list.some((r) => r.method === method && r.pattern.test(path));
  const takesNoBody = (method: string, path: string) => matches(bodyless, method, path) && !matches(withBody, method, path);

  app.use('*', requestContext(logger));
  const maxBodyBytes = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const globalBodyLimit = bodyLimit({
    maxSize: maxBodyBytes,
    // Each kind of endpoint refuses in its own language: OAuth's error body on userinfo, a page on
    // the login UI (a browser posted it), the API's error body everywhere else.
    onError: (c) => {
      const message = `request body too large (limit ${maxBodyBytes} bytes)`;
      if (c.req.path === '/oidc/v1/userinfo') return c.json({ error: 'invalid_request', error_description: message }, 413);
      if (c.req.path.startsWith('/ui/')) return c.html(messagePage('Request too large', `${message}. Go back to the application and start signing in again.`), 413);
      return respondError(c, bodyTooLarge(maxBodyBytes), 413);
    },
    exempt: (c) => takesNoBody(c.req.method, c.req.path),
  });
  // The import routes apply their own, larger limit (admin-transfer.ts, admin-import-jobs.ts).
  app.use('*', (c, next) => (c.req.path === IMPORT_PATH || c.req.path === START_IMPORT_JOB_PATH ? next() : globalBodyLimit(c, next)));

  const verifiers = [personalAccessTokenVerifier(deps.store), ...(deps.tokenVerifiers ?? [])];
  const secrets = deps.secrets ?? processSecretBox();
  const routeDeps: RouteDeps = {
    store: deps.store,
    auth: requireAuth(deps.store, verifiers, () => deps.instanceId),
    secrets,
    mail: {
      externalUrl: (deps.externalUrl ?? deps.oidc?.issuer ?? 'http://localhost:8080').replace(/\/+$/, ''),
      mailDropDir: deps.mailDropDir,
      testSends: deps.testSends ?? new SlidingWindowLimit(TEST_SENDS_PER_MINUTE, 60_000),
    },
  };
  registerSystemRoutes(app, { ...routeDeps, spec: deps.spec ?? loadSpec(), isShuttingDown: deps.isShuttingDown ?? (() => false) });
  registerAdminTextRoutes(app, routeDeps);
  registerManagementTextRoutes(app, routeDeps);
  // After the verify-email routes: their literal paths must win over the parameterised ones.
  registerMessageTextRoutes(app, routeDeps);
  registerMessageTextPreviewRoutes(app, routeDeps);
  registerLoginTextRoutes(app, routeDeps);
  registerAdminSmtpRoutes(app, routeDeps, secrets);
  registerManagementOrgRoutes(app, { ...routeDeps, onRemovalStarted: deps.onOrgRemovalStarted });
  registerManagementOrgMemberRoutes(app, routeDeps);
  registerManagementUserRoutes(app, routeDeps);
  registerManagementUserPatRoutes(app, routeDeps);
  registerManagementUserKeyRoutes(app, routeDeps);
  registerManagementUserIdpLinkRoutes(app, routeDeps);
  registerManagementUserAuthFactorRoutes(app, routeDeps);
  registerAuthUserAuthFactorRoutes(app, routeDeps);
  registerManagementUserChangeRoutes(app, routeDeps);
  registerManagementOrgDomainRoutes(app, routeDeps, deps.domainChecks);
  registerManagementUserEmailRoutes(app, routeDeps);
  registerManagementUserMetadataRoutes(app, routeDeps);
  registerPolicyRoutes(app, routeDeps);
  registerManagementUserStateRoutes(app, routeDeps);
  registerAdminOrgRoutes(app, routeDeps);
  registerAdminMemberRoutes(app, routeDeps);
  registerManagementAppRoutes(app, routeDeps);
  registerManagementUserSecretRoutes(app, routeDeps);
  if (deps.oidc) registerOidcRoutes(app, deps.oidc);
  registerMailPageRoutes(app, deps.store, deps.instanceId);
  registerStartPageRoutes(app, deps.store, deps.instanceId);
  registerManagementIdpRoutes(app, routeDeps);
  registerAdminIdpRoutes(app, routeDeps);
  registerManagementProjectRoutes(app, routeDeps);
  registerManagementProjectGrantRoutes(app, routeDeps);
  registerManagementUserGrantRoutes(app, routeDeps);
  registerAdminEventRoutes(app, routeDeps);
  registerManagementChangeRoutes(app, routeDeps);
  registerAdminTransferRoutes(app, {
    ...routeDeps,
    gcs: deps.gcsEndpoint ? { endpoint: deps.gcsEndpoint } : undefined,
    maxImportBodyBytes: deps.maxImportBodyBytes,
    importGate: deps.importGate ?? new ConcurrencyGate(deps.maxConcurrentImports ?? DEFAULT_MAX_CONCURRENT_IMPORTS),
  });
  registerAdminImportJobRoutes(app, { ...routeDeps, settings: deps.importJobs, maxBodyBytes: deps.maxImportBodyBytes ?? DEFAULT_MAX_IMPORT_BODY_BYTES });

  const knownPaths = app.routes.filter((r) => r.method !== 'ALL').map((r) => ({ method: r.method, pattern: pathPattern(r.path) }));
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
    if (error.code === GrpcCode.Internal) c.get('logger')?.error('unhandled error', { requestId: c.get('requestId'), error: String((err as Error)?.stack ?? err) });
    return respondError(c, error, status);
  });

  return app;
}

export type App = ReturnType<typeof createApp>;

/** OpenAPI path (`/a/{id}`) → a regex for that path. */
function specPathPattern(path: string): RegExp {
  return new RegExp(
    `^${path
      .split(/\{[^}]+\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]+')}$`,
  );
}

/** Hono path (`/a/:id`) → a regex for that path, to answer 405 on a known path. */
function pathPattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  // Exact: `/healthz/` is not `/healthz` (the router does not match it either), so it is a 404.
  return new RegExp(`^${source}$`);
}
