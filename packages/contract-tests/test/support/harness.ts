/**
 * The service under contract test: the real app built in-process on a SQLite file, reached
 * only through the typed client (its fetch is the app's own handler, wrapped by the ledger).
 */
import { createIdentityClient, type IdentityClient } from '@identity-service/client';
import type { AppDeps } from '@identity-service/server/src/app.js';
import { jobDocuments } from '@identity-service/server/src/domain/transfer/import/job-documents.js';
import { processSecretBox } from '@identity-service/server/src/secrets/secret-box.js';
import { createTestInstance, insertMachineUserWithToken, type TestInstance } from '@identity-service/server/test/support/instance.js';
import { tempDir } from '@identity-service/server/test/support/temp-dir.js';
import { recordingFetch } from './ledger.js';

export const BASE_URL = 'http://identity.test';
/**
 * The import's body limit in the harness: the service's default (512 MiB, the body is spooled to
 * disk) is too large to send past in a test, and the 413 is what the contract checks.
 */
export const HARNESS_MAX_IMPORT_BODY_BYTES = 8 * 1024 * 1024;

export interface Harness {
  instance: TestInstance;
  /** The bootstrap administrator (IAM_OWNER). */
  admin: IdentityClient;
  /** No Authorization header. */
  anonymous: IdentityClient;
  clientFor(token: string, orgId?: string): IdentityClient;
  /** A machine user with these roles (written through the store) and a client for it. */
  userWithRoles(roles: { instance?: string[]; org?: string[]; orgId?: string }): Promise<{ userId: string; token: string; client: IdentityClient }>;
  /** Makes /readyz report a shutdown in progress (true) or not (false). */
  setShuttingDown(value: boolean): void;
  /** Raw requests (malformed bodies, wrong content types), still recorded by the ledger. */
  fetch(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
}

export async function createHarness(options: Partial<AppDeps> = {}): Promise<Harness> {
  let shuttingDown = false;
  // Import jobs are queued here, never run (no worker): what the API answers is the contract.
  const importJobs = { documents: jobDocuments(tempDir('contract-jobs-'), processSecretBox()) };
  const instance = await createTestInstance('sqlite', { isShuttingDown: () => shuttingDown, importJobs, maxImportBodyBytes: HARNESS_MAX_IMPORT_BODY_BYTES, ...options });
  const fetch = recordingFetch((req) => instance.app.fetch(req));
  const clientFor = (token: string, orgId?: string) => createIdentityClient({ baseUrl: BASE_URL, token, orgId, fetch });
  return {
    instance,
    admin: clientFor(instance.adminToken),
    anonymous: createIdentityClient({ baseUrl: BASE_URL, fetch }),
    clientFor,
    async userWithRoles({ instance: instanceRoles, org, orgId }) {
      const { userId, token } = await insertMachineUserWithToken(instance, { instanceRoles, orgRoles: org, orgId });
      return { userId, token, client: clientFor(token) };
    },
    setShuttingDown(value) {
      shuttingDown = value;
    },
    fetch(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.token) headers.set('authorization', `Bearer ${init.token}`);
      return fetch(new Request(`${BASE_URL}${path}`, { ...init, headers }));
    },
  };
}
