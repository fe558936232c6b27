// The server's layers as import rules (ARCHITECTURE.md, "Layers and where things live"), checked by
// `npm run lint` (`depcruise`), which `npm test` runs first. From the top down:
//   wiring    main.ts, server.ts, app.ts, config.ts, commands/   assembles the rest; nothing imports it back
//   adapters  http/, rpc/, oidc/, ui/, background/, transport/    the ways in: requests, RPCs, the authorization server, pages, background work
//   domain    domain/                                             the rules: no HTTP, no SQL
//   services  store/, secrets/, storage/, outbound/, auth/        what the rules use: persistence, sealing, files, outbound calls, credentials
//   base      log.ts, runtime/, domain/errors.ts                  used by every layer
// An import that runs back up is allowed only where a rule below names it, with the reason beside it
// (and a line in ARCHITECTURE.md).
const SRC = '^packages/server/src/';
const WIRING = [`${SRC}(app|server|main|config)\\.ts$`, `${SRC}commands/`];
const ADAPTERS = `${SRC}(http|rpc|oidc|ui|background|transport)/`;
const SERVICES = `${SRC}(store|secrets|storage|outbound|auth|runtime)/`;
// auth/ holds credentials (tokens, password hashes, the verifier pool: services the domain uses) and
// the authentication of a request (bearer token → RequestContext), which builds on the domain.
const REQUEST_AUTHENTICATION = `${SRC}auth/(authenticate|auth-cache)\\.ts$`;
const SHARED_ERRORS = `${SRC}domain/errors\\.ts$`;
// The trail's vocabulary (a list of names and texts, no logic): the events repository refuses a type not in it.
const EVENT_VOCABULARY = `${SRC}domain/events/types\\.ts$`;
const HTTP_AND_SQL_PACKAGES = '(^|/)node_modules/(hono|@hono/[^/]+|oidc-provider|@connectrpc/[^/]+|drizzle-orm|better-sqlite3|pg)/';
const SQL_PACKAGES = '(^|/)node_modules/(drizzle-orm|better-sqlite3|pg)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No import circle, type imports included: a module and what it uses read in one direction. ' +
        'store/: the Store types live in store-types.ts and db.ts, which import nothing of the two stores; store.ts opens the stores and re-exports the types for the layers above. ' +
        'The domain policy: its kind (domain-kind.ts) is read by login names, its operations (domain.ts) re-check them.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-knows-no-http-or-sql',
      severity: 'error',
      comment: 'The domain knows no HTTP, no RPC, no oidc-provider and no SQL: it is called by the adapters and uses the store through its repositories.',
      from: { path: `${SRC}domain/` },
      to: { path: [ADAPTERS, ...WIRING, REQUEST_AUTHENTICATION, HTTP_AND_SQL_PACKAGES] },
    },
    {
      name: 'domain-knows-no-http-server',
      severity: 'error',
      comment: 'The domain knows no HTTP server (node:http, node:http2, node:net).',
      from: { path: `${SRC}domain/` },
      to: { dependencyTypes: ['core'], path: '^(node:)?(http|http2|net)$' },
    },
    {
      name: 'http-reaches-the-store-through-the-domain',
      severity: 'error',
      comment: 'Routes call domain functions: no store value, no repository, no SQL under http/. The Store type may be imported (routes hand the store to domain functions).',
      from: { path: `${SRC}http/` },
      to: { path: [`${SRC}store/`, SQL_PACKAGES], pathNot: `${SRC}store/store\\.ts$` },
    },
    {
      name: 'http-imports-only-the-store-type',
      severity: 'error',
      comment: 'From store/store.ts, http/ imports types only (test/project/architecture.test.ts also checks that the type is Store).',
      from: { path: `${SRC}http/` },
      to: { path: `${SRC}store/store\\.ts$`, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'authorization-server-and-pages-not-http',
      severity: 'error',
      comment: 'oidc/ and ui/ import nothing from http/: the login routes use them, not the other way round.',
      from: { path: `${SRC}(oidc|ui)/` },
      to: { path: `${SRC}http/` },
    },
    {
      name: 'services-below-the-domain',
      severity: 'error',
      comment: 'store/, secrets/, storage/, outbound/, auth/ (its credentials) and runtime/ import no domain module but the shared errors and the trail vocabulary, and nothing above.',
      from: { path: SERVICES, pathNot: REQUEST_AUTHENTICATION },
      to: { path: [`${SRC}domain/`, ADAPTERS, ...WIRING, REQUEST_AUTHENTICATION], pathNot: [SHARED_ERRORS, EVENT_VOCABULARY] },
    },
    {
      name: 'request-authentication-below-the-adapters',
      severity: 'error',
      comment: 'auth/authenticate.ts and auth-cache.ts build a RequestContext from the domain and the store; they import no adapter.',
      from: { path: REQUEST_AUTHENTICATION },
      to: { path: [ADAPTERS, ...WIRING] },
    },
    {
      name: 'adapters-below-the-wiring',
      severity: 'error',
      comment: 'Adapters import nothing of the wiring. Exception: rpc/ serves an RPC through the REST app it is handed, so it names the type App (app.ts), types only.',
      from: { path: ADAPTERS, pathNot: `${SRC}rpc/` },
      to: { path: WIRING },
    },
    {
      name: 'adapters-below-the-wiring-rpc',
      severity: 'error',
      comment: 'rpc/ imports nothing of the wiring but the App type.',
      from: { path: `${SRC}rpc/` },
      to: { path: WIRING, pathNot: `${SRC}app\\.ts$` },
    },
    {
      name: 'adapters-below-the-wiring-rpc-app-type',
      severity: 'error',
      comment: 'rpc/ may name the App type of app.ts, nothing else of it.',
      from: { path: `${SRC}rpc/` },
      to: { path: `${SRC}app\\.ts$`, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'transport-below-the-other-adapters',
      severity: 'error',
      comment:
        'transport/ (connections, HTTP/1.1 and h2c) serves the other adapters. Exception: http/errors.ts, whose error body it answers for what node refuses before any handler runs (431, 408, 400).',
      from: { path: `${SRC}transport/` },
      to: { path: `${SRC}(http|rpc|oidc|ui|background)/`, pathNot: `${SRC}http/errors\\.ts$` },
    },
    {
      name: 'base-imports-no-layer',
      severity: 'error',
      comment: 'log.ts, runtime/ and domain/errors.ts are used by every layer and import none.',
      from: { path: [`${SRC}log\\.ts$`, `${SRC}runtime/`, SHARED_ERRORS] },
      to: { path: SRC, pathNot: [`${SRC}log\\.ts$`, `${SRC}runtime/`, SHARED_ERRORS] },
    },
    {
      name: 'no-re-export-across-folders',
      severity: 'error',
      comment: 'A module re-exports only from its own folder: import a thing from where it lives.',
      from: { path: `${SRC}([^/]+)/` },
      to: { dependencyTypes: ['export'], pathNot: `${SRC}$1/` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: `${SRC}http/generated/` },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
