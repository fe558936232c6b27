import { and, asc, eq } from 'drizzle-orm';
import type { Tables } from '../schema.js';
import type { Db } from '../store.js';

/**
 * What RemoveOrg and RemoveProject (domain/orgs/removal.ts, domain/projects/removal.ts) read and
 * delete beyond the single-row operations of the other repositories: everything an organisation
 * or a project owns, listed to give each its event, and the rows that have no events of their own
 * (domains, policies, texts, roles) deleted in bulk.
 */
export function removalRepository(db: Db, t: Tables) {
  return {
    /** Every project of the organisation, oldest first. */
    projectsOf: (orgId: string) => db.select().from(t.projects).where(eq(t.projects.orgId, orgId)).orderBy(asc(t.projects.createdAt), asc(t.projects.id)),
    /** Every user of the organisation (id order). */
    usersOf: (orgId: string) => db.select().from(t.users).where(eq(t.users.orgId, orgId)).orderBy(asc(t.users.id)),
    /** Every application of the project, OIDC and API. */
    appsOf: (projectId: string) => db.select().from(t.oidcApps).where(eq(t.oidcApps.projectId, projectId)).orderBy(asc(t.oidcApps.id)),
    appKeysOf: (appId: string) => db.select().from(t.appKeys).where(eq(t.appKeys.appId, appId)),
    machineKeysOf: (userId: string) => db.select().from(t.machineKeys).where(eq(t.machineKeys.userId, userId)),
    /** Memberships of one scope (an organisation, a project, a project grant). */
    membersOf: (scopeType: string, scopeId: string) =>
      db.select().from(t.members).where(and(eq(t.members.scopeType, scopeType), eq(t.members.scopeId, scopeId))),
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
  };
}
