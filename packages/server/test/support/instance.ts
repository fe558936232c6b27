/**
 * A complete, bootstrapped service for one test: a fresh store (a SQLite file in a temp
 * folder, or a fresh PostgreSQL database), the first-start bootstrap, and the app built
 * in-process. `describeEachStore` runs a suite once per dialect.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import { type AppDeps, createApp } from '../../src/app.js';
import { generateToken, hashToken, NO_EXPIRY } from '../../src/auth/tokens.js';
import { newId } from '../../src/domain/ids.js';
import { bootstrapInstance } from '../../src/domain/instance/bootstrap.js';
import { jobDocuments } from '../../src/domain/transfer/import/job-documents.js';
import { processSecretBox } from '../../src/secrets/secret-box.js';
import { type Dialect, openStore, type Store, type StoreLocation } from '../../src/store/store.js';
import type {} from './global-postgres.js'; // the typing of inject('postgresUrl')
import { tempDir } from './temp-dir.js';

export const DIALECTS: Dialect[] = ['sqlite', 'postgres'];

export function describeEachStore(name: string, suite: (dialect: Dialect) => void) {
  describe.each(DIALECTS)(`${name} [%s]`, (dialect) => suite(dialect));
}

export interface TestInstance {
  dialect: Dialect;
  store: Store;
  /** Where the store is: a second store (another process'''s worth) can open it too. */
  location: StoreLocation;
  app: ReturnType<typeof createApp>;
  instanceId: string;
  defaultOrgId: string;
  adminUserId: string;
  adminToken: string;
  /** `app.request` with the admin token (or another) and JSON handling. */
  call: (method: string, path: string, options?: { token?: string | null; body?: unknown; headers?: Record<string, string> }) => Promise<Response>;
  close: () => Promise<void>;
}

let dbCounter = 0;

/** A connection URL to a new, empty PostgreSQL database on the test server (what a first start migrates). */
export function freshPostgresDatabase(): Promise<string> {
  return newPostgresDatabase('');
}

/**
 * A connection URL to a new PostgreSQL database with every migration applied: a copy of the template
 * global-postgres.ts migrated once for the run (opening it migrates nothing; about 1 s less per store).
 */
export function freshMigratedPostgresDatabase(): Promise<string> {
  return newPostgresDatabase(` template ${inject('postgresTemplate')}`);
}

async function newPostgresDatabase(template: string): Promise<string> {
  const adminUrl = inject('postgresUrl');
  const name = `test_${process.pid}_${Date.now()}_${dbCounter++}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`create database ${name}${template}`);
  await client.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function openTestStore(dialect: Dialect): Promise<{ store: Store; location: StoreLocation; cleanup: () => void }> {
  if (dialect === 'postgres') {
    const location = { dialect, target: await freshMigratedPostgresDatabase() };
    return { store: await openStore(location), location, cleanup: () => undefined };
  }
  const dir = mkdtempSync(join(tmpdir(), 'identity-sqlite-'));
  const location = { dialect, target: join(dir, 'identity.db') };
  return {
    store: await openStore(location),
    location,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A fresh store for the suite this is called in (openTestStore): opened before its tests and handed
 * to `use`, closed and removed after them.
 */
export function openStoreForSuite(dialect: Dialect, use: (store: Store) => void): void {
  let opened: Awaited<ReturnType<typeof openTestStore>> | undefined;
  beforeAll(async () => {
    opened = await openTestStore(dialect);
    use(opened.store);
  });
  afterAll(async () => {
    await opened?.store.close();
    opened?.cleanup();
  });
}

/** `instanceDomain`: the instance's domain, suffix of its organisations' generated domains (EXTERNAL_URL's host at a first start). */
export async function createTestInstance(dialect: Dialect, options: Partial<AppDeps> = {}, instanceDomain = 'localhost'): Promise<TestInstance> {
  const { store, location, cleanup } = await openTestStore(dialect);
  const boot = await bootstrapInstance(store, instanceDomain);
  // Import jobs have a folder for their documents, as under `npm start` (DATA_DIR/import-jobs); no worker runs them here.
  const importJobs = { documents: jobDocuments(tempDir('test-import-jobs-'), options.secrets ?? processSecretBox()) };
  const app = createApp({ store, instanceId: boot.instanceId, importJobs, ...options });
  const adminToken = boot.created!.token;
  const call: TestInstance['call'] = (method, path, opts = {}) => {
    const token = opts.token === undefined ? adminToken : opts.token;
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    }
    return Promise.resolve(app.request(path, { method, headers, body }));
  };
  return {
    dialect,
    store,
    location,
    app,
    instanceId: boot.instanceId,
    defaultOrgId: boot.defaultOrgId,
    adminUserId: boot.created!.adminUserId,
    adminToken,
    call,
    close: async () => {
      await store.close();
      cleanup();
    },
  };
}

/**
 * A machine user with a PAT and the given memberships, written straight to the store: for
 * permission tests that must not depend on the users API.
 */
export async function insertMachineUserWithToken(
  t: TestInstance,
  options: {
    orgId?: string;
    instanceRoles?: string[];
    orgRoles?: string[];
    /** Project roles (PROJECT_*): membership of the project, owned by the project's organisation. */
    projectRoles?: { projectId: string; roles: string[] }[];
    expiresAt?: Date;
  } = {},
): Promise<{ userId: string; token: string }> {
  const userId = newId();
  const token = generateToken();
  const orgId = options.orgId ?? t.defaultOrgId;
  const at = new Date();
  await t.store.transaction(async (tx) => {
    const user = await tx.events.append({ aggregateType: 'user', aggregateId: userId, type: 'user.machine.added', payload: {}, creator: 'TEST', resourceOwner: orgId });
    await tx.users.insert({
      id: userId,
      orgId,
      type: 'machine',
      userName: `m-${userId}`,
      userNameKey: `m-${userId}`,
      state: 'USER_STATE_ACTIVE',
      data: { name: 'test machine' },
      passwordHash: null,
      passwordChangeRequired: false,
      sequence: user.sequence,
      createdAt: at,
      changedAt: at,
    });
    await tx.tokens.insert({ id: newId(), userId, tokenHash: hashToken(token), expiresAt: options.expiresAt ?? NO_EXPIRY, sequence: user.sequence, createdAt: at, changedAt: at });
    if (options.instanceRoles?.length) {
      await tx.members.insert({ scopeType: 'instance', scopeId: t.instanceId, userId, resourceOwner: t.instanceId, roles: options.instanceRoles, sequence: 1, createdAt: at, changedAt: at });
    }
    if (options.orgRoles?.length) {
      await tx.members.insert({ scopeType: 'org', scopeId: orgId, userId, resourceOwner: orgId, roles: options.orgRoles, sequence: 1, createdAt: at, changedAt: at });
    }
    for (const { projectId, roles } of options.projectRoles ?? []) {
      const project = await tx.projects.get(projectId);
      if (!project) throw new Error(`no project ${projectId}`);
      await tx.members.insert({ scopeType: 'project', scopeId: projectId, userId, resourceOwner: project.orgId, roles, sequence: 1, createdAt: at, changedAt: at });
    }
  });
  return { userId, token };
}

/**
 * A human user written straight to the store (profile and email as the users API keeps them),
 * until tests can use the users API.
 */
export async function insertHumanUser(t: TestInstance, options: { orgId?: string; userName?: string; firstName?: string; lastName?: string; email?: string } = {}): Promise<{ userId: string }> {
  const userId = newId();
  const orgId = options.orgId ?? t.defaultOrgId;
  const userName = options.userName ?? `h-${userId}`;
  const profile = { firstName: options.firstName ?? 'Test', lastName: options.lastName ?? 'Human', displayName: `${options.firstName ?? 'Test'} ${options.lastName ?? 'Human'}` };
  const at = new Date();
  await t.store.transaction(async (tx) => {
    const user = await tx.events.append({ aggregateType: 'user', aggregateId: userId, type: 'user.human.added', payload: { userName }, creator: 'TEST', resourceOwner: orgId });
    await tx.users.insert({
      id: userId,
      orgId,
      type: 'human',
      userName,
      userNameKey: userName.toLowerCase(),
      state: 'USER_STATE_ACTIVE',
      data: { profile, email: { email: options.email ?? `${userName}@example.com` } },
      passwordHash: null,
      passwordChangeRequired: false,
      sequence: user.sequence,
      createdAt: at,
      changedAt: at,
    });
  });
  return { userId };
}

/** An organisation written straight to the store, until tests can use the orgs API. */
export async function insertOrg(t: TestInstance, name: string): Promise<{ orgId: string }> {
  const orgId = newId();
  const at = new Date();
  await t.store.transaction(async (tx) => {
    const event = await tx.events.append({ aggregateType: 'org', aggregateId: orgId, type: 'org.added', payload: { name }, creator: 'TEST', resourceOwner: orgId });
    await tx.orgs.insert({
      id: orgId,
      name,
      nameKey: name.toLowerCase(),
      state: 'ORG_STATE_ACTIVE',
      primaryDomain: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.localhost`,
      sequence: event.sequence,
      createdAt: at,
      changedAt: at,
    });
  });
  return { orgId };
}
