/**
 * The whole service on a real loopback port (server.ts: API + login UI + oidc-provider), on a
 * fresh store of either dialect, for end-to-end tests with real HTTP clients.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { authenticate, personalAccessTokenVerifier } from '../../src/auth/authenticate.js';
import type { PasswordVerifier } from '../../src/auth/password-verifier.js';
import { ImportJobWorker } from '../../src/background/import-job-worker.js';
import { addOidcApp } from '../../src/domain/apps/oidc-apps.js';
import type { OidcAppInput } from '../../src/domain/apps/oidc-config.js';
import { jobDocuments } from '../../src/domain/transfer/import/job-documents.js';
import type { Logger } from '../../src/log.js';
import type { SigningAlgorithm } from '../../src/oidc/keys.js';
import { processSecretBox } from '../../src/secrets/secret-box.js';
import { createRequestHandler, type ServiceHandler } from '../../src/server.js';
import type { Dialect } from '../../src/store/store.js';
import { createLimitedHttpServer, DEFAULT_CONNECTION_LIMITS, type RequestHandler, type ServiceServer } from '../../src/transport/http-server.js';
import { createTestInstance, type TestInstance } from './instance.js';
import { tempDir } from './temp-dir.js';

// The browser stand-in lives in its own module (no vitest) so the bench can sign people in too.
export { Browser, loginThroughForm, skipSecondFactorOffer } from './browser.js';

export interface OidcTestServer {
  t: TestInstance;
  issuer: string;
  service: ServiceHandler;
  server: ServiceServer;
  /** fetch against the server with the admin PAT (or `token`), JSON in and out. */
  api: (method: string, path: string, body?: unknown, token?: string, headers?: Record<string, string>) => Promise<{ status: number; body: any }>;
  close: () => Promise<void>;
}

export interface OidcTestServerOptions {
  maxPasswordAttempts?: number;
  /** The pool the login's password checks run in (default: the process's own). */
  passwordVerifier?: PasswordVerifier;
  logger?: Logger;
  /** The service's body limits and import slots (MAX_BODY_BYTES, MAX_IMPORT_BODY_BYTES, MAX_CONCURRENT_IMPORTS). */
  maxBodyBytes?: number;
  maxImportBodyBytes?: number;
  maxConcurrentImports?: number;
  /** The mail-drop folder test sends of texts write to while no SMTP provider is active (none by default). */
  mailDropDir?: string;
  /** The first signing key's algorithm (SIGNING_KEY_ALGORITHM; RS256 by default). */
  signingKeyAlgorithm?: SigningAlgorithm;
  /** The instance's domain (default `localhost`): two instances with different ones generate different organisation domains. */
  instanceDomain?: string;
  /** Run import jobs, as `npm start` does (a worker on the jobs' folder, looking at once when one is started). */
  importJobWorker?: boolean;
  /** Accepted self-registration forms per client address and hour (REGISTRATIONS_PER_ADDRESS_PER_HOUR). */
  registrationsPerAddressPerHour?: number;
}

export async function startOidcServer(dialect: Dialect, options: OidcTestServerOptions = {}): Promise<OidcTestServer> {
  const t = await createTestInstance(dialect, {}, options.instanceDomain);
  const documents = jobDocuments(tempDir('oidc-import-jobs-'), processSecretBox());
  let worker: ImportJobWorker | undefined;
  // Listen first: the issuer must name the real port before the provider is built. The service's
  // own server (HTTP/1.1 and h2c on one port, its limits), as main.ts listens.
  let handle: RequestHandler = (_req, res) => void res.writeHead(503).end();
  const server = createLimitedHttpServer((req, res) => handle(req, res), { ...DEFAULT_CONNECTION_LIMITS, maxConnectionsPerAddress: DEFAULT_CONNECTION_LIMITS.maxConnections });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const service = await createRequestHandler({
    store: t.store,
    instanceId: t.instanceId,
    issuer,
    lockout: { maxPasswordAttempts: options.maxPasswordAttempts ?? 0 },
    passwordVerifier: options.passwordVerifier,
    logger: options.logger,
    maxBodyBytes: options.maxBodyBytes,
    maxImportBodyBytes: options.maxImportBodyBytes,
    maxConcurrentImports: options.maxConcurrentImports,
    mailDropDir: options.mailDropDir,
    signingKeyAlgorithm: options.signingKeyAlgorithm,
    // A folder for import jobs' documents, as `npm start` has (DATA_DIR/import-jobs); a worker runs them only when asked for.
    importJobs: { documents, onStarted: () => worker?.poke() },
    registrationsPerAddressPerHour: options.registrationsPerAddressPerHour,
  });
  handle = service.handler;
  if (options.importJobWorker) {
    worker = new ImportJobWorker({ store: t.store, secrets: processSecretBox(), instanceId: t.instanceId, documents, pollMs: 100 });
    worker.start();
  }
  const api: OidcTestServer['api'] = async (method, path, body, token = t.adminToken, headers = {}) => {
    const res = await fetch(issuer + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed };
  };
  return {
    t,
    issuer,
    service,
    server,
    api,
    close: async () => {
      await worker?.stop();
      service.stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await t.close();
    },
  };
}

/**
 * RFC 7636 appendix B's S256 challenge. The tests that drive the login read the code from the
 * redirect and never redeem it (those that do, use openid-client with a verifier of their own).
 */
export const PKCE_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

/**
 * The address of an authorization-code request with PKCE at `base` (the service's issuer):
 * `openid` scope and the S256 challenge unless `params` says otherwise.
 */
export function authorizeUrl(base: string, params: { client_id: string; redirect_uri: string } & Record<string, string>): string {
  const url = new URL('/oauth/v2/authorize', base);
  url.search = new URLSearchParams({ response_type: 'code', scope: 'openid', code_challenge: PKCE_CHALLENGE, code_challenge_method: 'S256', ...params }).toString();
  return url.href;
}

/** A public client signing people in with PKCE (no secret; devMode, so an http loopback redirect URI is used). */
export function publicClient(name: string, redirectUri: string): OidcAppInput & { name: string } {
  return { name, redirectUris: [redirectUri], appType: 'OIDC_APP_TYPE_USER_AGENT', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', devMode: true };
}

/**
 * What a test of the login starts from: a new project (`project`: its name and settings) with one
 * public client redirecting to `redirectUri`, in the organisation `headers` names (`x-service-orgid`;
 * the admin's own without). Returns the client's id.
 */
export async function publicClientInNewProject(
  s: OidcTestServer,
  project: { name: string; privateLabelingSetting?: string },
  appName: string,
  redirectUri: string,
  headers?: Record<string, string>,
): Promise<string> {
  const projectId = (await s.api('POST', '/management/v1/projects', project, undefined, headers)).body.id;
  const app = await s.api('POST', `/management/v1/projects/${projectId}/apps/oidc`, publicClient(appName, redirectUri), undefined, headers);
  expect(app.status, JSON.stringify(app.body)).toBe(200);
  return app.body.clientId as string;
}

/** An OIDC app through the domain function, as the admin (the HTTP API has its own tests). */
export async function createOidcApp(s: OidcTestServer, projectId: string, input: OidcAppInput & { name: string }) {
  const ctx = await authenticate(s.t.store, [personalAccessTokenVerifier(s.t.store)], s.t.instanceId, `Bearer ${s.t.adminToken}`, undefined);
  return addOidcApp(s.t.store, ctx, projectId, input);
}

export async function importHuman(s: OidcTestServer, userName: string, password: ({ password: string } | { hashedPassword: { value: string } }) & { otpCode?: string }) {
  const res = await s.api('POST', '/management/v1/users/human/_import', {
    userName,
    profile: { firstName: 'Test', lastName: userName },
    email: { email: `${userName}@example.com`, isEmailVerified: true },
    ...password,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.userId as string;
}
