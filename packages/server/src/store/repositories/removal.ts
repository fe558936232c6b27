import { and, asc, type Column, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import type { Tables } from '../schema.js';

export type OrgRemovalRow = Tables['orgRemovals']['$inferSelect'];

/**
 * What RemoveUser, RemoveOrg and RemoveProject (domain/users/removal.ts, domain/orgs/removal.ts,
 * domain/projects/removal.ts) read and delete beyond the single-row operations of the other
 * repositories: everything an organisation, a project or a user owns, listed to give each its
 * event, and the rows that have no events of their own deleted in bulk — for many users at once,
 * so that removing an organisation's users costs a few statements per batch, not per user.
 */
export function removalRepository(db: Db, t: Tables) {
  const p = t.oidcPayloads;
  const userOwnedTables = Object.values(t).flatMap((table) => {
    const userId = (getTableColumns(table) as Record<string, Column>).userId;
    return userId ? [[table, userId] as const] : [];
  });
  return {
    /** Every project of the organisation, oldest first. */
    projectsOf: (orgId: string) => db.select().from(t.projects).where(eq(t.projects.orgId, orgId)).orderBy(asc(t.projects.createdAt), asc(t.projects.id)),
    /**
     * `limit` of the organisation's users: its removal takes them a batch at a time. In no order
     * (an order the index does not give would sort every remaining user for each batch).
     */
    usersOf: (orgId: string, limit: number) => db.select().from(t.users).where(eq(t.users.orgId, orgId)).limit(limit),
    /** Every application of the project, OIDC and API. */
    appsOf: (projectId: string) => db.select().from(t.oidcApps).where(eq(t.oidcApps.projectId, projectId)).orderBy(asc(t.oidcApps.id)),
    appKeysOf: (appId: string) => db.select().from(t.appKeys).where(eq(t.appKeys.appId, appId)),
    /** The machine keys of these users. */
    machineKeysOf: (userIds: string[]) => (userIds.length ? db.select().from(t.machineKeys).where(inArray(t.machineKeys.userId, userIds)) : Promise.resolve([])),
    /** Memberships of one scope (an organisation, a project, a project grant). */
    membersOf: (scopeType: string, scopeId: string) =>
      db
        .select()
        .from(t.members)
        .where(and(eq(t.members.scopeType, scopeType), eq(t.members.scopeId, scopeId))),
    /** Every membership of these users, whatever its scope. */
    membershipsOf: (userIds: string[]) => (userIds.length ? db.select().from(t.members).where(inArray(t.members.userId, userIds)) : Promise.resolve([])),
    /** Every user grant of these users, in any organisation. */
    userGrantsOf: (userIds: string[]) => (userIds.length ? db.select().from(t.userGrants).where(inArray(t.userGrants.userId, userIds)) : Promise.resolve([])),
    /** Up to `limit` user grants the organisation gave (on its projects or on projects granted to it), in no order (as `usersOf`). */
    userGrantsGivenBy: (orgId: string, limit: number) => db.select().from(t.userGrants).where(eq(t.userGrants.orgId, orgId)).limit(limit),
    /** Up to `limit` user grants on these projects, whoever gave them, in no order (as `usersOf`). */
    userGrantsOn: (projectIds: string[], limit: number) => (projectIds.length ? db.select().from(t.userGrants).where(inArray(t.userGrants.projectId, projectIds)).limit(limit) : Promise.resolve([])),
    async removeUserGrants(ids: string[]): Promise<void> {
      if (ids.length) await db.delete(t.userGrants).where(inArray(t.userGrants.id, ids));
    },
    /** Project grants of other organisations' projects to `orgId`. */
    grantsTo: (orgId: string) => db.select().from(t.projectGrants).where(eq(t.projectGrants.grantedOrgId, orgId)),
    /** The identity providers the organisation owns. */
    idpsOf: (orgId: string) => db.select().from(t.idps).where(eq(t.idps.ownerId, orgId)),
    async removeProject(projectId: string): Promise<void> {
      await db.delete(t.projectRoles).where(eq(t.projectRoles.projectId, projectId));
      await db.delete(t.projects).where(eq(t.projects.id, projectId));
    },
    /** The organisation's row and what it owns without events of its own: domains, policies, texts. */
    async removeOrg(orgId: string): Promise<void> {
      await db.delete(t.orgDomains).where(eq(t.orgDomains.orgId, orgId));
      await db.delete(t.policies).where(eq(t.policies.ownerId, orgId));
      await db.delete(t.loginTexts).where(eq(t.loginTexts.ownerId, orgId));
      await db.delete(t.messageTexts).where(eq(t.messageTexts.ownerId, orgId));
      await db.delete(t.orgs).where(eq(t.orgs.id, orgId));
    },

    /**
     * The users and every row that is theirs alone, whose removal the user's own event covers:
     * memberships and user grants (each removed with an event of its own on its aggregate, by the
     * caller, before), tokens, keys, identity-provider links, codes, queued and sent mails,
     * metadata, what signing in kept (failed checks, TOTP and client secrets, an authenticator
     * being set up, a skipped offer) and the authorization server's rows: sessions, grants, codes
     * and tokens naming a user as the account, and the client-credentials tokens of a machine
     * user's client id (they name no account: a later machine user given the same client id would
     * otherwise inherit them). Every table with a `user_id` column is one of them, found from the
     * schema: a table added later goes with its users without a word here.
     */
    async removeUsers(userIds: string[]): Promise<void> {
      if (userIds.length === 0) return;
      const clientIds = (await db.select({ clientId: t.machineSecrets.clientId }).from(t.machineSecrets).where(inArray(t.machineSecrets.userId, userIds))).map((r) => r.clientId);
      // The expressions of the indexes oidc_payloads_account and oidc_payloads_kind_client (schema.ts).
      await db.delete(p).where(inArray(sql`(${p.payload}->>'accountId')`, userIds));
      if (clientIds.length) await db.delete(p).where(and(eq(p.kind, 'ClientCredentials'), inArray(sql`(${p.payload}->>'clientId')`, clientIds)));
      for (const [table, userId] of userOwnedTables) await db.delete(table).where(inArray(userId, userIds));
      await db.delete(t.users).where(inArray(t.users.id, userIds));
    },

    /** Links to identity providers that are gone (an organisation's, once its users are removed). */
    async removeLinksOf(idpIds: string[]): Promise<void> {
      if (idpIds.length) await db.delete(t.idpUserLinks).where(inArray(t.idpUserLinks.idpId, idpIds));
    },

    // ---- organisations being removed (table org_removals) ----
    async startOrgRemoval(row: OrgRemovalRow): Promise<void> {
      await db.insert(t.orgRemovals).values(row);
    },
    async orgRemoval(orgId: string): Promise<OrgRemovalRow | undefined> {
      const [row] = await db.select().from(t.orgRemovals).where(eq(t.orgRemovals.orgId, orgId)).limit(1);
      return row;
    },
    /** Removals not finished, oldest first. */
    async pendingOrgRemovals(): Promise<OrgRemovalRow[]> {
      return db.select().from(t.orgRemovals).orderBy(asc(t.orgRemovals.createdAt), asc(t.orgRemovals.orgId));
    },
    async finishOrgRemoval(orgId: string): Promise<void> {
      await db.delete(t.orgRemovals).where(eq(t.orgRemovals.orgId, orgId));
    },
  };
}
