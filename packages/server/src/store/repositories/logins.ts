import { and, eq, inArray } from 'drizzle-orm';
import type { Tables } from '../schema.js';
import type { Db } from '../store.js';
import type { UserRow } from './users.js';

export type MachineSecretRow = Tables['machineSecrets']['$inferSelect'];

/**
 * What logging in and issuing tokens read and write about users: finding a user by login name,
 * the failed-attempt counter, password hash and state changes, machine secrets, and the roles
 * a user holds through active user grants.
 */
export function loginRepository(db: Db, t: Tables) {
  const u = t.users;
  return {
    /** Users whose (lower-cased) user name is `userNameKey`, with their organisation's primary domain. */
    async usersByNameKey(userNameKey: string): Promise<Array<{ user: UserRow; orgPrimaryDomain: string }>> {
      return db
        .select({ user: u, orgPrimaryDomain: t.orgs.primaryDomain })
        .from(u)
        .innerJoin(t.orgs, eq(t.orgs.id, u.orgId))
        .where(eq(u.userNameKey, userNameKey));
    },
    async failures(userId: string): Promise<number> {
      const [row] = await db.select().from(t.passwordFailures).where(eq(t.passwordFailures.userId, userId)).limit(1);
      return row?.count ?? 0;
    },
    async setFailures(userId: string, count: number, at: Date): Promise<void> {
      await db
        .insert(t.passwordFailures)
        .values({ userId, count, changedAt: at })
        .onConflictDoUpdate({ target: t.passwordFailures.userId, set: { count, changedAt: at } });
    },
    async clearFailures(userId: string): Promise<void> {
      await db.delete(t.passwordFailures).where(eq(t.passwordFailures.userId, userId));
    },
    async setUserState(userId: string, state: string, sequence: number, changedAt: Date): Promise<void> {
      await db.update(u).set({ state, sequence, changedAt }).where(eq(u.id, userId));
    },
    async setPasswordHash(userId: string, passwordHash: string, sequence: number, changedAt: Date): Promise<void> {
      await db.update(u).set({ passwordHash, sequence, changedAt }).where(eq(u.id, userId));
    },
    machineSecrets: {
      async get(userId: string): Promise<MachineSecretRow | undefined> {
        const [row] = await db.select().from(t.machineSecrets).where(eq(t.machineSecrets.userId, userId)).limit(1);
        return row;
      },
      async byClientId(clientId: string): Promise<MachineSecretRow | undefined> {
        const [row] = await db.select().from(t.machineSecrets).where(eq(t.machineSecrets.clientId, clientId)).limit(1);
        return row;
      },
      async upsert(row: MachineSecretRow): Promise<void> {
        await db
          .insert(t.machineSecrets)
          .values(row)
          .onConflictDoUpdate({ target: t.machineSecrets.userId, set: { secretHash: row.secretHash, createdAt: row.createdAt } });
      },
      async remove(userId: string): Promise<void> {
        await db.delete(t.machineSecrets).where(eq(t.machineSecrets.userId, userId));
      },
    },
    /** The user's active grants on these projects, with the granting organisation's primary domain. */
    async grantedRoles(userId: string, projectIds: string[], activeState: string): Promise<Array<{ orgId: string; orgPrimaryDomain: string; projectId: string; roleKeys: string[] }>> {
      if (projectIds.length === 0) return [];
      const g = t.userGrants;
      return db
        .select({ orgId: g.orgId, orgPrimaryDomain: t.orgs.primaryDomain, projectId: g.projectId, roleKeys: g.roleKeys })
        .from(g)
        .innerJoin(t.orgs, eq(t.orgs.id, g.orgId))
        .where(and(eq(g.userId, userId), inArray(g.projectId, projectIds), eq(g.state, activeState)));
    },
  };
}
