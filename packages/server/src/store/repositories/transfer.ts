/**
 * Bulk reads and writes of the export/import (domain/transfer): keyset-paged reads so an
 * export streams in constant memory, and batched existence checks and inserts so an import of
 * 100,000 users is a few hundred statements rather than a few hundred thousand.
 */
import { and, asc, eq, gt, inArray, notInArray, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db } from '../db.js';
import type { Tables } from '../schema.js';

type Row<K extends keyof Tables> = Tables[K]['$inferInsert'];

/** Rows per INSERT / per IN (…) list: well below SQLite's 32,766 bound variables. */
export const TRANSFER_BATCH = 500;

export function transferRepository(db: Db, t: Tables) {
  return { ...exportReads(db, t), ...importExistenceChecks(db, t), ...importInserts(db, t) };
}

/** `fn` on `items` in slices of TRANSFER_BATCH, one after the other. */
async function chunked<T>(items: T[], fn: (chunk: T[]) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += TRANSFER_BATCH) await fn(items.slice(i, i + TRANSFER_BATCH));
}

/** Keyset-paged and per-organisation reads of the export. */
function exportReads(db: Db, t: Tables) {
  return {
    async orgsToExport(ids: string[] | undefined, excluded: string[]) {
      const o = t.orgs;
      return db
        .select()
        .from(o)
        .where(and(ids && ids.length ? inArray(o.id, ids) : undefined, excluded.length ? notInArray(o.id, excluded) : undefined))
        .orderBy(asc(o.id));
    },
    /** Users of one type of an organisation with id > `afterId`, by id; only those of `onlyIds` when given (an incremental export). */
    async usersPage(orgId: string, type: 'human' | 'machine', afterId: string, limit: number, onlyIds?: readonly string[]) {
      const u = t.users;
      return db
        .select()
        .from(u)
        .where(and(eq(u.orgId, orgId), eq(u.type, type), onlyIds ? inArray(u.id, [...onlyIds]) : undefined, afterId ? gt(u.id, afterId) : undefined))
        .orderBy(asc(u.id))
        .limit(limit);
    },
    /** Each user's sealed TOTP secret, with the time step of the last code accepted (the replay guard, `otp_checks`). */
    async otpSecrets(userIds: string[]): Promise<Map<string, { secret: string; lastStep?: number }>> {
      const out = new Map<string, { secret: string; lastStep?: number }>();
      await chunked(userIds, async (chunk) => {
        const rows = await db
          .select({ userId: t.userOtpSecrets.userId, secret: t.userOtpSecrets.secret, lastStep: t.otpChecks.lastStep })
          .from(t.userOtpSecrets)
          .leftJoin(t.otpChecks, eq(t.otpChecks.userId, t.userOtpSecrets.userId))
          .where(inArray(t.userOtpSecrets.userId, chunk));
        for (const r of rows) out.set(r.userId, { secret: r.secret, ...(r.lastStep == null ? {} : { lastStep: Number(r.lastStep) }) });
      });
      return out;
    },
    async projectsOf(orgId: string) {
      return db.select().from(t.projects).where(eq(t.projects.orgId, orgId)).orderBy(asc(t.projects.id));
    },
    async projectRolesOf(orgId: string) {
      const r = t.projectRoles;
      return db.select().from(r).where(eq(r.orgId, orgId)).orderBy(asc(r.projectId), asc(r.roleKey));
    },
    /** The organisation's applications of both kinds (API applications are rows of the same table), by id. */
    async appsOf(orgId: string) {
      return db.select().from(t.oidcApps).where(eq(t.oidcApps.orgId, orgId)).orderBy(asc(t.oidcApps.id));
    },
    /**
     * The organisation's machine users' and applications' keys (public keys only), by id, for the
     * export's opt-in `withKeys`. Read whole: a few per machine user or application, not per person.
     */
    async machineKeysOf(orgId: string) {
      return db.select().from(t.machineKeys).where(eq(t.machineKeys.orgId, orgId)).orderBy(asc(t.machineKeys.id));
    },
    async appKeysOf(orgId: string) {
      return db.select().from(t.appKeys).where(eq(t.appKeys.orgId, orgId)).orderBy(asc(t.appKeys.id));
    },
    /** Personal access tokens of the organisation's users (their hashes: the tokens are never stored), by id. */
    async tokensOf(orgId: string) {
      const p = t.personalAccessTokens;
      return db
        .select({ id: p.id, userId: p.userId, tokenHash: p.tokenHash, expiresAt: p.expiresAt })
        .from(p)
        .innerJoin(t.users, eq(t.users.id, p.userId))
        .where(eq(t.users.orgId, orgId))
        .orderBy(asc(p.id));
    },
    /** Client secrets of the organisation's machine users (their hashes), by user id. */
    async machineSecretsOf(orgId: string) {
      const m = t.machineSecrets;
      return db
        .select({ userId: m.userId, clientId: m.clientId, secretHash: m.secretHash })
        .from(m)
        .innerJoin(t.users, eq(t.users.id, m.userId))
        .where(eq(t.users.orgId, orgId))
        .orderBy(asc(m.userId));
    },
    /** The organisation's identity providers of both kinds, by id. */
    async idpsOf(orgId: string) {
      const i = t.idps;
      return db
        .select()
        .from(i)
        .where(and(eq(i.ownerId, orgId), eq(i.ownerType, 'IDP_OWNER_TYPE_ORG')))
        .orderBy(asc(i.id));
    },
    /** User grants owned by the organisation whose user belongs to one of `userOrgIds`, paged by id. */
    async userGrantsPage(orgId: string, userOrgIds: string[], afterId: string, limit: number, onlyIds?: readonly string[]) {
      const g = t.userGrants;
      return db
        .select({ grant: g })
        .from(g)
        .innerJoin(t.users, eq(t.users.id, g.userId))
        .where(and(eq(g.orgId, orgId), inArray(t.users.orgId, userOrgIds), onlyIds ? inArray(g.id, [...onlyIds]) : undefined, afterId ? gt(g.id, afterId) : undefined))
        .orderBy(asc(g.id))
        .limit(limit);
    },
    /** Org and project memberships owned by the organisation, of users in `userOrgIds`. */
    async membersOf(orgId: string, scopeType: 'org' | 'project', userOrgIds: string[]) {
      const m = t.members;
      return db
        .select({ member: m })
        .from(m)
        .innerJoin(t.users, eq(t.users.id, m.userId))
        .where(and(eq(m.resourceOwner, orgId), eq(m.scopeType, scopeType), inArray(t.users.orgId, userOrgIds)))
        .orderBy(asc(m.scopeId), asc(m.userId));
    },
    /** Every member of one project grant who is a user of `userOrgIds` (no cap: an export must not drop any). */
    async projectGrantMembersOf(grantId: string, userOrgIds: string[]) {
      const m = t.members;
      return db
        .select({ member: m })
        .from(m)
        .innerJoin(t.users, eq(t.users.id, m.userId))
        .where(and(eq(m.scopeType, 'project_grant'), eq(m.scopeId, grantId), inArray(t.users.orgId, userOrgIds)))
        .orderBy(asc(m.userId));
    },
    async messageTextsOf(ownerId: string) {
      const m = t.messageTexts;
      return db.select().from(m).where(eq(m.ownerId, ownerId)).orderBy(asc(m.messageType), asc(m.language));
    },
    async loginTextsOf(ownerId: string) {
      return db.select().from(t.loginTexts).where(eq(t.loginTexts.ownerId, ownerId)).orderBy(asc(t.loginTexts.language));
    },
  };
}

/** The import's existence checks: which of the ids (names, keys) it would write exist already. */
function importExistenceChecks(db: Db, t: Tables) {
  const existing = async (column: PgColumn, table: PgTable, ids: string[], extra?: SQL): Promise<Set<string>> => {
    const found = new Set<string>();
    await chunked([...new Set(ids)], async (chunk) => {
      const rows = await db
        .select({ v: column })
        .from(table)
        .where(and(inArray(column, chunk), extra));
      for (const r of rows as { v: string }[]) found.add(r.v);
    });
    return found;
  };

  return {
    /** Ids of users, and of removed users (whose events remain): neither may be imported again. */
    async existingUserIds(ids: string[]): Promise<Set<string>> {
      const live = await existing(t.users.id, t.users, ids);
      // A removed user's id stays taken, unless its last event says it went with its organisation
      // (RemoveOrg, domain/orgs/removal.ts): such an organisation may be imported again with its ids.
      const removed = new Set<string>();
      const e = t.events;
      await chunked([...new Set(ids)], async (chunk) => {
        const rows = await db
          .select({ id: e.aggregateId, type: e.type, sequence: e.sequence })
          .from(e)
          .where(and(eq(e.aggregateType, 'user'), inArray(e.aggregateId, chunk)));
        const last = new Map<string, { type: string; sequence: number }>();
        for (const r of rows) if ((last.get(r.id)?.sequence ?? -1) < Number(r.sequence)) last.set(r.id, { type: r.type, sequence: Number(r.sequence) });
        for (const [id, event] of last) if (event.type !== 'user.cascade.removed') removed.add(id);
      });
      return new Set([...live, ...removed]);
    },
    existingUserNameKeys: (orgId: string, keys: string[]) => existing(t.users.userNameKey, t.users, keys, eq(t.users.orgId, orgId)),
    /** User name keys held by users of any of `orgIds` (bare login names, users/login-names.ts). */
    existingUserNameKeysIn: async (orgIds: string[], keys: string[]) => (orgIds.length ? existing(t.users.userNameKey, t.users, keys, inArray(t.users.orgId, orgIds)) : new Set<string>()),
    existingProjectIds: (ids: string[]) => existing(t.projects.id, t.projects, ids),
    existingOidcAppIds: (ids: string[]) => existing(t.oidcApps.id, t.oidcApps, ids),
    existingClientIds: (ids: string[]) => existing(t.oidcApps.clientId, t.oidcApps, ids),
    existingIdpIds: (ids: string[]) => existing(t.idps.id, t.idps, ids),
    existingMachineKeyIds: (ids: string[]) => existing(t.machineKeys.id, t.machineKeys, ids),
    existingAppKeyIds: (ids: string[]) => existing(t.appKeys.id, t.appKeys, ids),
    existingUserGrantIds: (ids: string[]) => existing(t.userGrants.id, t.userGrants, ids),
    existingTokenIds: (ids: string[]) => existing(t.personalAccessTokens.id, t.personalAccessTokens, ids),
    /** Token hashes among `hashes` held by personal access tokens here, with their token's id. */
    async tokensByHash(hashes: string[]): Promise<Map<string, string>> {
      const out = new Map<string, string>();
      const p = t.personalAccessTokens;
      await chunked([...new Set(hashes)], async (chunk) => {
        for (const r of await db.select({ id: p.id, hash: p.tokenHash }).from(p).where(inArray(p.tokenHash, chunk))) out.set(r.hash, r.id);
      });
      return out;
    },
    async existingProjectNames(orgId: string): Promise<Set<string>> {
      const rows = await db.select({ name: t.projects.name }).from(t.projects).where(eq(t.projects.orgId, orgId));
      return new Set(rows.map((r) => r.name));
    },
    async existingIdpNameKeys(ownerId: string): Promise<Set<string>> {
      const rows = await db.select({ k: t.idps.nameKey }).from(t.idps).where(eq(t.idps.ownerId, ownerId));
      return new Set(rows.map((r) => r.k));
    },
    async existingRoleKeys(projectIds: string[]): Promise<Set<string>> {
      const out = new Set<string>();
      await chunked(projectIds, async (chunk) => {
        const rows = await db.select({ p: t.projectRoles.projectId, k: t.projectRoles.roleKey }).from(t.projectRoles).where(inArray(t.projectRoles.projectId, chunk));
        for (const r of rows) out.add(`${r.p}_${r.k}`);
      });
      return out;
    },
    /** `orgId_userId_projectId` of existing grants of the organisation. */
    async existingUserGrantKeys(orgId: string, userIds: string[]): Promise<Set<string>> {
      const out = new Set<string>();
      const g = t.userGrants;
      await chunked([...new Set(userIds)], async (chunk) => {
        const rows = await db
          .select({ u: g.userId, p: g.projectId })
          .from(g)
          .where(and(eq(g.orgId, orgId), inArray(g.userId, chunk)));
        for (const r of rows) out.add(`${r.p}_${r.u}`);
      });
      return out;
    },
    /** `scopeId_userId` of existing memberships of a scope type among `scopeIds`. */
    async existingMemberKeys(scopeType: string, scopeIds: string[]): Promise<Set<string>> {
      const out = new Set<string>();
      const m = t.members;
      await chunked([...new Set(scopeIds)], async (chunk) => {
        const rows = await db
          .select({ s: m.scopeId, u: m.userId })
          .from(m)
          .where(and(eq(m.scopeType, scopeType), inArray(m.scopeId, chunk)));
        for (const r of rows) out.add(`${r.s}_${r.u}`);
      });
      return out;
    },
    /** Projects among `ids` with their organisation (for grants and members of the document). */
    async projectOrgs(ids: string[]): Promise<Map<string, string>> {
      const out = new Map<string, string>();
      await chunked([...new Set(ids)], async (chunk) => {
        const rows = await db.select({ id: t.projects.id, org: t.projects.orgId }).from(t.projects).where(inArray(t.projects.id, chunk));
        for (const r of rows) out.set(r.id, r.org);
      });
      return out;
    },
    async existingMessageTextKeys(ownerId: string): Promise<Set<string>> {
      const rows = await db.select({ t: t.messageTexts.messageType, l: t.messageTexts.language }).from(t.messageTexts).where(eq(t.messageTexts.ownerId, ownerId));
      return new Set(rows.map((r) => `${r.t}_${r.l}`));
    },
    async existingLoginTextLanguages(ownerId: string): Promise<Set<string>> {
      const rows = await db.select({ l: t.loginTexts.language }).from(t.loginTexts).where(eq(t.loginTexts.ownerId, ownerId));
      return new Set(rows.map((r) => r.l));
    },
  };
}

/** The import's inserts, TRANSFER_BATCH rows a statement. */
function importInserts(db: Db, t: Tables) {
  return {
    insertUsers: (rows: Row<'users'>[]) => chunked(rows, async (c) => void (await db.insert(t.users).values(c))),
    insertOtpSecrets: (rows: Row<'userOtpSecrets'>[]) => chunked(rows, async (c) => void (await db.insert(t.userOtpSecrets).values(c))),
    insertOtpChecks: (rows: Row<'otpChecks'>[]) => chunked(rows, async (c) => void (await db.insert(t.otpChecks).values(c))),
    insertProjects: (rows: Row<'projects'>[]) => chunked(rows, async (c) => void (await db.insert(t.projects).values(c))),
    insertProjectRoles: (rows: Row<'projectRoles'>[]) => chunked(rows, async (c) => void (await db.insert(t.projectRoles).values(c))),
    insertOidcApps: (rows: Row<'oidcApps'>[]) => chunked(rows, async (c) => void (await db.insert(t.oidcApps).values(c))),
    insertIdps: (rows: Row<'idps'>[]) => chunked(rows, async (c) => void (await db.insert(t.idps).values(c))),
    insertMachineKeys: (rows: Row<'machineKeys'>[]) => chunked(rows, async (c) => void (await db.insert(t.machineKeys).values(c))),
    insertAppKeys: (rows: Row<'appKeys'>[]) => chunked(rows, async (c) => void (await db.insert(t.appKeys).values(c))),
    insertTokens: (rows: Row<'personalAccessTokens'>[]) => chunked(rows, async (c) => void (await db.insert(t.personalAccessTokens).values(c))),
    insertUserGrants: (rows: Row<'userGrants'>[]) => chunked(rows, async (c) => void (await db.insert(t.userGrants).values(c))),
    insertMembers: (rows: Row<'members'>[]) => chunked(rows, async (c) => void (await db.insert(t.members).values(c))),
    insertMessageTexts: (rows: Row<'messageTexts'>[]) => chunked(rows, async (c) => void (await db.insert(t.messageTexts).values(c))),
    insertLoginTexts: (rows: Row<'loginTexts'>[]) => chunked(rows, async (c) => void (await db.insert(t.loginTexts).values(c))),
  };
}
