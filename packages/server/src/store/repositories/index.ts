/**
 * All repositories bound to one connection or transaction. The domain receives this object
 * and never sees drizzle or SQL. One file per table group, named after it.
 */
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

/** What differs per dialect inside repositories (see store/postgres.ts and store/sqlite.ts). */
export interface DialectHooks {
  /** Serialises writers of one aggregate for the rest of the transaction (no-op where writers are already serial). */
  lockAggregate?: (aggregateType: string, aggregateId: string) => Promise<void>;
}

export function createRepositories(db: Db, t: Tables, hooks: DialectHooks = {}) {
  return {
    events: eventRepository(db, t, hooks),
    instance: instanceRepository(db, t),
    idps: idpRepository(db, t),
    orgs: orgRepository(db, t),
    users: userRepository(db, t),
    tokens: tokenRepository(db, t),
    members: memberRepository(db, t),
    messageTexts: messageTextRepository(db, t),
    projects: projectRepository(db, t),
    userGrants: userGrantRepository(db, t),
    oidc: oidcRepository(db, t),
    oidcApps: oidcAppRepository(db, t),
    logins: loginRepository(db, t),
    transfer: transferRepository(db, t),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
