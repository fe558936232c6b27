/**
 * One port for everything: the Hono API and login UI, and oidc-provider's endpoints (through the
 * authorization server's front door, oidc/front-door.ts), behind a dispatcher on the path. The provider is a Koa app that must see the raw request (a body
 * parsed by Hono middleware first breaks client authentication), hence dispatching before Hono
 * rather than mounting it as a Hono route. main.ts and the end-to-end tests both use this.
 */
import { getRequestListener } from '@hono/node-server';
import type Provider from 'oidc-provider';
import { type App, type AppDeps, createApp, DEFAULT_MAX_BODY_BYTES } from './app.js';
import type { PasswordVerifier } from './auth/password-verifier.js';
import { OidcUpstreams } from './domain/federation/oidc-upstream.js';
import { ProviderKeys } from './domain/federation/provider-keys.js';
import type { LockoutPolicy } from './domain/login/password-login.js';
import { DEFAULT_REGISTRATIONS_PER_ADDRESS_PER_HOUR } from './domain/login/registration.js';
import { seedLockoutDefault } from './domain/policies/lockout.js';
import { SlidingWindowLimit } from './domain/rate-limit.js';
import { TEST_SENDS_PER_MINUTE } from './domain/texts/preview.js';
import { sealPlainOtpSecrets } from './domain/users/otp-secret.js';
import { ConcurrencyGate } from './http/middleware/concurrency-limit.js';
import { DEFAULT_MAX_CONCURRENT_IMPORTS, DEFAULT_MAX_IMPORT_BODY_BYTES } from './http/routes/admin-transfer.js';
import { loadSpec } from './http/spec.js';
import { accessTokenReader, oauthAccessTokenVerifier } from './oidc/access-tokens.js';
import { hashLegacyTokenKeys, startPayloadSweeper } from './oidc/adapter.js';
import { oauthClients } from './oidc/clients.js';
import { authorizationServerFrontDoor } from './oidc/front-door.js';
import { KeyRing, loadOrCreateKeys, type SigningAlgorithm, signingAlgorithm } from './oidc/keys.js';
import { createOidcProvider, ROUTES } from './oidc/provider.js';
import { createRpcHandler, isRpcPath } from './rpc/rpc-handler.js';
import { processSecretBox } from './secrets/secret-box.js';
import {
  type ConnectionLimits,
  createLimitedHttpServer,
  type NodeRequest,
  type NodeResponse,
  type RequestHandler,
  refuseDotSegments,
  requestPath,
  type ServiceServer,
} from './transport/http-server.js';

export interface ServerDeps extends Omit<AppDeps, 'oidc'> {
  /** Connection timeouts and cap (DEFAULT_CONNECTION_LIMITS when omitted). */
  connections?: ConnectionLimits;
  /** The authorization server's issuer (EXTERNAL_URL): the base of every OAuth/OIDC URL. */
  issuer: string;
  /** The instance lockout policy's initial value (LOCKOUT_MAX_PASSWORD_ATTEMPTS), written when it has none. */
  lockout: LockoutPolicy;
  /**
   * Behind a TLS-terminating proxy: the client's address is the last X-Forwarded-For entry (login
   * throttling, oidc-provider's `ctx.ip`). URLs never follow X-Forwarded-Host/Proto: they are the
   * issuer's (pinOriginToIssuer in oidc/provider.ts).
   */
  trustProxy?: boolean;
  /** How often the signing keys are re-read from the store (default KEY_CHECK_INTERVAL_MS). */
  keyCheckIntervalMs?: number;
  /**
   * The first signing key's algorithm when the store has none yet (SIGNING_KEY_ALGORITHM; RS256
   * when unset). Set, and unlike the key in use, it is said in a warning: it changes no existing key.
   */
  signingKeyAlgorithm?: SigningAlgorithm;
  /** The bounded pool the login's password checks run in (default: the process's own). */
  passwordVerifier?: PasswordVerifier;
  /** Identity providers' signing keys (default: a cache of this handler's own). */
  providerKeys?: ProviderKeys;
  /** Accepted self-registration forms per client address and hour (REGISTRATIONS_PER_ADDRESS_PER_HOUR). */
  registrationsPerAddressPerHour?: number;
}

/**
 * How often a running process re-reads the signing keys, so that a rotation by another process
 * (`npm run keys:rotate`) or a key's expiry reaches it without a restart. A token signed by a
 * key it does not know yet makes it re-read them at once (KeyRing.verify).
 */
export const KEY_CHECK_INTERVAL_MS = 30_000;

/**
 * SIGNING_KEY_ALGORITHM names the first key's algorithm only: set on a store whose key has another,
 * it would otherwise change nothing without a word. The operator is told how to switch.
 */
function warnOfOtherSigningAlgorithm(deps: Pick<ServerDeps, 'signingKeyAlgorithm' | 'logger'>, inUse: SigningAlgorithm): void {
  const configured = deps.signingKeyAlgorithm;
  if (!configured || configured === inUse) return;
  deps.logger?.warn('SIGNING_KEY_ALGORITHM differs from the signing key in use, which it does not change', {
    configured,
    inUse,
    toSwitch: `npm run keys:rotate -w @identity-service/server -- 24 ${configured}`,
  });
}

export interface ServiceHandler {
  /** Every request, over HTTP/1.1 or HTTP/2. */
  handler: RequestHandler;
  /** The app and provider serving now (both are rebuilt when the signing keys change). */
  readonly app: App;
  readonly provider: Provider;
  /** Re-reads the keys now; resolves true when they changed and the provider was rebuilt. */
  reloadKeys: () => Promise<boolean>;
  /** Stops background work (expired-row sweeping, key checks). */
  stop: () => void;
}

/** Paths oidc-provider answers; everything else (and userinfo, see oidc-ui.ts) goes to Hono. */
function isProviderPath(path: string): boolean {
  if (path === ROUTES.userinfo) return false;
  return path.startsWith('/oauth/v2/') || path.startsWith('/oidc/v1/') || path === '/.well-known/openid-configuration' || path.startsWith('/.well-known/oauth-authorization-server');
}

interface Serving {
  app: App;
  provider: Provider;
  /** Every request to the provider's paths (oidc/front-door.ts). */
  oauth: ReturnType<typeof authorizationServerFrontDoor>;
  hono: ReturnType<typeof getRequestListener>;
}

export async function createRequestHandler(deps: ServerDeps): Promise<ServiceHandler> {
  const issuer = deps.issuer.replace(/\/+$/, '');
  // Loaded once: a rebuild after a key change must not parse the spec again.
  const spec = deps.spec ?? loadSpec();
  // Shared by every app built below, so a rebuild does not reset how many imports are running.
  const importGate = deps.importGate ?? new ConcurrencyGate(deps.maxConcurrentImports ?? DEFAULT_MAX_CONCURRENT_IMPORTS);
  const testSends = deps.testSends ?? new SlidingWindowLimit(TEST_SENDS_PER_MINUTE, 60_000);
  const registrations = new SlidingWindowLimit(deps.registrationsPerAddressPerHour ?? DEFAULT_REGISTRATIONS_PER_ADDRESS_PER_HOUR, 3_600_000);
  // oidc-provider takes its keys at construction only, so new keys mean a new provider and an
  // app bound to it. Requests already running finish on the ones they started with; sessions,
  // grants and interactions live in the store and carry over.
  const build = (): Serving => {
    const clients = oauthClients(deps.store, issuer);
    const provider = createOidcProvider({ store: deps.store, instanceId: deps.instanceId, issuer, keys, clients });
    if (deps.trustProxy) provider.proxy = true;
    const oauth = authorizationServerFrontDoor(provider, { store: deps.store, instanceId: deps.instanceId, issuer, clients, logger: deps.logger });
    const readAccessToken = accessTokenReader(provider, keys, issuer, deps.store);
    const app = createApp({
      ...deps,
      spec,
      importGate,
      testSends,
      externalUrl: deps.externalUrl ?? issuer,
      tokenVerifiers: [...(deps.tokenVerifiers ?? []), oauthAccessTokenVerifier(readAccessToken, deps.store)],
      oidc: {
        provider,
        store: deps.store,
        readAccessToken,
        issuer,
        passwordVerifier: deps.passwordVerifier,
        trustProxy: deps.trustProxy,
        instanceId: deps.instanceId,
        secrets,
        providerKeys,
        oidcUpstreams,
        registrations,
      },
    });
    return { app, provider, oauth, hono: getRequestListener(app.fetch) };
  };
  // LOCKOUT_MAX_PASSWORD_ATTEMPTS: the instance lockout policy's initial value (domain/policies/lockout.ts).
  await seedLockoutDefault(deps.store, deps.instanceId, deps.lockout.maxPasswordAttempts);
  // Tokens an earlier version stored under their own value move to their hash (oidc/adapter.ts).
  await hashLegacyTokenKeys(deps.store);
  const secrets = deps.secrets ?? processSecretBox();
  // TOTP secrets an earlier version stored in plain text are sealed (domain/users/otp-secret.ts).
  await sealPlainOtpSecrets(deps.store, secrets);
  // Kept across rebuilds: identity providers' keys do not change with ours.
  const providerKeys = deps.providerKeys ?? new ProviderKeys();
  const oidcUpstreams = new OidcUpstreams(secrets);
  const initialKeys = await loadOrCreateKeys(deps.store, secrets, deps.signingKeyAlgorithm);
  warnOfOtherSigningAlgorithm(deps, signingAlgorithm(initialKeys));
  const keys: KeyRing = new KeyRing(deps.store, secrets, initialKeys, () => {
    serving = build();
  });
  let serving = build();

  const stopSweeper = startPayloadSweeper(deps.store);
  const keyCheck = setInterval(() => void keys.refresh(0).catch(() => undefined), deps.keyCheckIntervalMs ?? KEY_CHECK_INTERVAL_MS);
  keyCheck.unref();
  // ZITADEL's v1 services over gRPC, gRPC-web and Connect, each RPC through its REST twin on the current app.
  const rpc = createRpcHandler({
    app: () => serving.app,
    logger: deps.logger,
    maxBodyBytes: deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    maxImportBodyBytes: deps.maxImportBodyBytes ?? DEFAULT_MAX_IMPORT_BODY_BYTES,
  });
  const handler = (req: NodeRequest, res: NodeResponse) => {
    const path = requestPath(req.url);
    const current = serving;
    if (isProviderPath(path)) current.oauth(req, res, path);
    else if (isRpcPath(path)) rpc(req, res);
    else if (refuseDotSegments(req, res)) return;
    else void current.hono(req, res);
  };
  return {
    handler,
    get app() {
      return serving.app;
    },
    get provider() {
      return serving.provider;
    },
    reloadKeys: () => keys.refresh(0),
    stop: () => {
      clearInterval(keyCheck);
      stopSweeper();
    },
  };
}

/** A not-yet-listening server for the whole service (HTTP/1.1 and h2c on one port). */
export async function createServer(deps: ServerDeps): Promise<ServiceHandler & { server: ServiceServer }> {
  const service = await createRequestHandler(deps);
  const server = createLimitedHttpServer(service.handler, deps.connections, deps.logger);
  server.on('close', service.stop);
  // Not a spread: `app` and `provider` are getters (rebuilt on a key change).
  return Object.assign(service, { server });
}
