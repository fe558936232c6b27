/**
 * All repositories bound to one connection or transaction. The domain receives this object
 * and never sees drizzle or SQL. One file per table group, named after it.
 */
import { authTables, watchAuthWrites } from '../auth-writes.js';
import type { Tables } from '../schema.js';
import type { Db } from '../store.js';
import { eventRepository, type AppendEvent } from './events.js';
import { idpLinkRepository } from './idp-links.js';
import { notificationRepository } from './notifications.js';
import { userMetadataRepository } from './user-metadata.js';
import { policyRepository } from './policies.js';
import { idpRepository } from './idps.js';
import { instanceRepository } from './instance.js';
import { loginRepository } from './logins.js';
import { memberRepository } from './members.js';
import { appKeyRepository } from './app-keys.js';
import { oidcAppRepository } from './oidc-apps.js';
import { oidcRepository } from './oidc.js';
import { orgRepository } from './orgs.js';
import { orgDomainRepository } from './org-domains.js';
import { projectRepository } from './projects.js';
import { loginTextRepository, messageTextRepository } from './texts.js';
import { tokenRepository } from './tokens.js';
import { transferRepository } from './transfer.js';
import { userGrantRepository } from './user-grants.js';
import { projectGrantRepository } from './project-grants.js';
import { userRepository } from './users.js';

/** What the store (store/postgres.ts, store/sqlite.ts) wants to hear from its repositories. */
export interface RepositoryHooks {
  /** Called when a query that writes a table authentication reads is built (auth-writes.ts). */
  onAuthWrite?: () => void;
}

/**
 * Statements a dialect runs without drizzle: the event append (each dialect has its own, see
 * AppendEvent) and, on SQLite, the text read and upsert, which replace the drizzle methods of the
 * same name and must behave identically (sqlite-hot-path.ts; a test holds them to it).
 */
export interface DialectStatements {
  appendEvent: AppendEvent;
  /** Whether `select … for update skip locked` exists (PostgreSQL; SQLite has one writer anyway). */
  skipLocked?: boolean;
  messageTexts?: Pick<ReturnType<typeof messageTextRepository>, 'get' | 'upsert'>;
}

export function createRepositories(base: Db, t: Tables, dialect: DialectStatements, hooks: RepositoryHooks = {}) {
  const db = hooks.onAuthWrite ? watchAuthWrites(base, authTables(t), hooks.onAuthWrite) : base;
  return {
    events: eventRepository(db, t, dialect.appendEvent),
    instance: instanceRepository(db, t),
    idps: idpRepository(db, t),
    orgDomains: orgDomainRepository(db, t),
    idpLinks: idpLinkRepository(db, t),
    userMetadata: userMetadataRepository(db, t),
    policies: policyRepository(db, t),
    notifications: notificationRepository(db, t, { skipLocked: dialect.skipLocked ?? false }),
    orgs: orgRepository(db, t),
    users: userRepository(db, t),
    tokens: tokenRepository(db, t),
    members: memberRepository(db, t),
    messageTexts: { ...messageTextRepository(db, t), ...dialect.messageTexts },
    loginTexts: loginTextRepository(db, t),
    projects: projectRepository(db, t),
    userGrants: userGrantRepository(db, t),
    projectGrants: projectGrantRepository(db, t),
    oidc: oidcRepository(db, t),
    oidcApps: oidcAppRepository(db, t),
    appKeys: appKeyRepository(db, t),
    logins: loginRepository(db, t),
    transfer: transferRepository(db, t),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
