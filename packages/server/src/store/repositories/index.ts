/**
 * All repositories bound to one connection or transaction. The domain receives this object
 * and never sees drizzle or SQL. One file per table group, named after it.
 */
import { authTables } from '../auth-writes.js';
import type { Db } from '../db.js';
import type { Tables } from '../schema.js';
import { watchWrites } from '../watch-writes.js';
import { appKeyRepository } from './app-keys.js';
import type { DialectStatements, SetTextWithEvent } from './dialect-statements.js';
import { eventRepository } from './events.js';
import { idpLinkRepository } from './idp-links.js';
import { idpRepository } from './idps.js';
import { importJobRepository } from './import-jobs.js';
import { instanceRepository } from './instance.js';
import { loginRepository } from './logins.js';
import { machineKeyRepository } from './machine-keys.js';
import { memberRepository } from './members.js';
import { notificationRepository } from './notifications.js';
import { oidcRepository } from './oidc.js';
import { oidcAppRepository } from './oidc-apps.js';
import { orgDomainRepository } from './org-domains.js';
import { orgRepository } from './orgs.js';
import { otpEnrolmentRepository } from './otp-enrolment.js';
import { policyRepository } from './policies.js';
import { projectGrantRepository } from './project-grants.js';
import { projectRepository } from './projects.js';
import { registeredEventsOnly } from './registered-events.js';
import { removalRepository } from './removal.js';
import { loginTextRepository, messageTextRepository } from './texts.js';
import { tokenRepository } from './tokens.js';
import { transferRepository } from './transfer.js';
import { userGrantRepository } from './user-grants.js';
import { userMetadataRepository } from './user-metadata.js';
import { userRepository } from './users.js';

export type { AppendedEvent, DialectStatements, MessageTextStatements, SetTextWithEvent, TextState } from './dialect-statements.js';

/** What the store (store/postgres.ts, store/sqlite.ts) wants to hear from its repositories. */
export interface RepositoryHooks {
  /** Called when a query that writes a table authentication reads is built (auth-writes.ts). */
  onAuthWrite?: () => void;
  /**
   * Called when a query that writes `message_texts` is built (an import's insert, a removal; not the
   * dialect's own text writes). PostgreSQL's transactions then forget the texts they remember
   * (store/postgres-text-writes.ts).
   */
  onMessageTextsWrite?: () => void;
}

export function createRepositories(base: Db, t: Tables, statements: DialectStatements, hooks: RepositoryHooks = {}) {
  const dialect = registeredEventsOnly(statements);
  const auth = hooks.onAuthWrite ? { tables: authTables(t), onWrite: hooks.onAuthWrite } : undefined;
  const { onMessageTextsWrite } = hooks;
  const db =
    auth || onMessageTextsWrite
      ? watchWrites(base, (table) => {
          if (auth?.tables.has(table)) auth.onWrite();
          if (table === t.messageTexts) onMessageTextsWrite?.();
        })
      : base;
  return {
    events: eventRepository(db, t, dialect.appendEvent, dialect.appendEvents, dialect.settledPosition),
    instance: instanceRepository(db, t),
    idps: idpRepository(db, t),
    orgDomains: orgDomainRepository(db, t),
    idpLinks: idpLinkRepository(db, t),
    userMetadata: userMetadataRepository(db, t),
    policies: policyRepository(db, t),
    notifications: notificationRepository(db, t, { skipLocked: dialect.skipLocked ?? false }),
    importJobs: importJobRepository(db, t, { skipLocked: dialect.skipLocked ?? false }),
    orgs: orgRepository(db, t),
    users: userRepository(db, t),
    tokens: tokenRepository(db, t),
    members: memberRepository(db, t),
    messageTexts: textsWithEvents(db, t, dialect),
    loginTexts: loginTextRepository(db, t),
    projects: projectRepository(db, t),
    userGrants: userGrantRepository(db, t, { appendEvent: dialect.appendEvent, takeWithEvent: dialect.takeUserGrantWithEvent }),
    projectGrants: projectGrantRepository(db, t),
    oidc: oidcRepository(db, t),
    oidcApps: oidcAppRepository(db, t),
    appKeys: appKeyRepository(db, t),
    machineKeys: machineKeyRepository(db, t),
    logins: loginRepository(db, t, base),
    otpEnrolment: otpEnrolmentRepository(db, t),
    transfer: transferRepository(db, t),
    removal: removalRepository(db, t),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;

/**
 * Message texts with the dialect's hot statements, and `setWithEvent`: the text's event appended and
 * its new state upserted (sequence and times from the event), in one statement where the dialect has
 * one, otherwise as the two calls every other write makes.
 */
function textsWithEvents(db: Db, t: Tables, dialect: DialectStatements) {
  const texts = { ...messageTextRepository(db, t), ...dialect.messageTexts };
  const separately: SetTextWithEvent = async (event, text, at) => {
    const stored = await dialect.appendEvent(event, at);
    await texts.upsert({ ...text, sequence: stored.sequence, createdAt: text.createdAt ?? stored.createdAt, changedAt: stored.createdAt });
    return stored;
  };
  return { ...texts, setWithEvent: dialect.setTextWithEvent ?? separately };
}
