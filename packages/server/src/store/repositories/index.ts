/**
 * All repositories bound to one connection or transaction. The domain receives this object
 * and never sees drizzle or SQL. One file per table group, named after it.
 */
import { authTables, watchAuthWrites } from '../auth-writes.js';
import type { Tables } from '../schema.js';
import type { Db } from '../store.js';
import { eventRepository } from './events.js';
import { idpRepository } from './idps.js';
import { instanceRepository } from './instance.js';
import { loginRepository } from './logins.js';
import { memberRepository } from './members.js';
import { oidcAppRepository } from './oidc-apps.js';
import { oidcRepository } from './oidc.js';
import { orgRepository } from './orgs.js';
import { projectRepository } from './projects.js';
import { messageTextRepository } from './texts.js';
import { tokenRepository } from './tokens.js';
import { transferRepository } from './transfer.js';
import { userGrantRepository } from './user-grants.js';
import { userRepository } from './users.js';

/** What the store (store/postgres.ts, store/sqlite.ts) wants to hear from its repositories. */
export interface RepositoryHooks {
  /** Called when a query that writes a table authentication reads is built (auth-writes.ts). */
  onAuthWrite?: () => void;
}

/**
 * Methods of the hot path a dialect runs without drizzle (sqlite-hot-path.ts,
 * postgres-hot-path.ts); they replace the drizzle methods of the same name and must behave
 * identically (each has a test that holds them to it).
 */
export interface HotPath {
  messageTexts: Pick<ReturnType<typeof messageTextRepository>, 'get' | 'upsert'>;
  events: Pick<ReturnType<typeof eventRepository>, 'append'>;
}

export function createRepositories(base: Db, t: Tables, hooks: RepositoryHooks = {}, hot: Partial<HotPath> = {}) {
  const db = hooks.onAuthWrite ? watchAuthWrites(base, authTables(t), hooks.onAuthWrite) : base;
  return {
    events: { ...eventRepository(db, t), ...hot.events },
    instance: instanceRepository(db, t),
    idps: idpRepository(db, t),
    orgs: orgRepository(db, t),
    users: userRepository(db, t),
    tokens: tokenRepository(db, t),
    members: memberRepository(db, t),
    messageTexts: { ...messageTextRepository(db, t), ...hot.messageTexts },
    projects: projectRepository(db, t),
    userGrants: userGrantRepository(db, t),
    oidc: oidcRepository(db, t),
    oidcApps: oidcAppRepository(db, t),
    logins: loginRepository(db, t),
    transfer: transferRepository(db, t),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
