import { and, asc, eq, gt, inArray, like, not, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { once } from '../prepared.js';
import type { Tables } from '../schema.js';
import type { UserRow } from './users.js';

/** The kinds of short codes whose wrong guesses are counted per user (domain/login/code-throttle.ts). */
export type CodeKindCounted = 'otp' | 'otp_setup' | 'email_verification' | 'init' | 'password_reset';

/** A user's wrong codes of one kind since the last right one, and when the last was given. */
export interface CodeFailures {
  count: number;
  lastFailureAt: Date;
}

export type MachineSecretRow = Tables['machineSecrets']['$inferSelect'];

/** The statements a sign-in and a client-credentials token run on every call: prepared (store/prepared.ts). */
function preparedLoginStatements(db: Db, t: Tables, unwatched: Db) {
  const u = t.users;
  // Every client-credentials token looks its machine client up (oidc/clients.ts): prepared.
  const machineSecretByClientId = once(() =>
    db
      .select()
      .from(t.machineSecrets)
      .where(eq(t.machineSecrets.clientId, sql.placeholder('clientId')))
      .limit(1)
      .prepare('machine_secrets_by_client_id'),
  );
  // A sign-in finds its user by login name, forgets its failed checks and moves its sequence: prepared,
  // as the rest of a sign-in's statements are (a drizzle query built per call costs more than it runs).
  const usersByNameKeyQuery = once(() =>
    db
      .select({ user: u, orgPrimaryDomain: t.orgs.primaryDomain })
      .from(u)
      .innerJoin(t.orgs, eq(t.orgs.id, u.orgId))
      .where(eq(u.userNameKey, sql.placeholder('userNameKey')))
      .prepare('users_by_name_key'),
  );
  const clearPasswordFailures = once(() =>
    db
      .delete(t.passwordFailures)
      .where(eq(t.passwordFailures.userId, sql.placeholder('userId')))
      .prepare('password_failures_clear'),
  );
  // On the unwatched connection: preparing a write reports it once, when it is built (auth-writes.ts),
  // and this one is not to be reported at all.
  const moveSequence = once(() =>
    unwatched
      .update(u)
      .set({ sequence: sql`${sql.placeholder('sequence')}` })
      .where(eq(u.id, sql.placeholder('userId')))
      .prepare('users_move_sequence'),
  );
  return { machineSecretByClientId, usersByNameKeyQuery, clearPasswordFailures, moveSequence };
}

/**
 * What logging in and issuing tokens read and write about users: finding a user by login name,
 * the failed-attempt counter, password hash and state changes, machine secrets, and the roles
 * a user holds through active user grants.
 */
/**
 * `unwatched` is the connection without the authentication watch (auth-writes.ts), for the one
 * write to `users` that changes nothing authentication reads: see `moveUserSequence`.
 */
export function loginRepository(db: Db, t: Tables, unwatched: Db = db) {
  const u = t.users;
  const { machineSecretByClientId, usersByNameKeyQuery, clearPasswordFailures, moveSequence } = preparedLoginStatements(db, t, unwatched);
  return {
    /** Users whose (lower-cased) user name is `userNameKey`, with their organisation's primary domain. */
    async usersByNameKey(userNameKey: string): Promise<Array<{ user: UserRow; orgPrimaryDomain: string }>> {
      return usersByNameKeyQuery().execute({ userNameKey });
    },
    /** Failed password checks since the last success (the lockout policy's `maxPasswordAttempts`). */
    async failures(userId: string): Promise<number> {
      const [row] = await db.select({ count: t.passwordFailures.count }).from(t.passwordFailures).where(eq(t.passwordFailures.userId, userId)).limit(1);
      return row?.count ?? 0;
    },
    async setFailures(userId: string, count: number, at: Date): Promise<void> {
      await db
        .insert(t.passwordFailures)
        .values({ userId, count, changedAt: at })
        .onConflictDoUpdate({ target: t.passwordFailures.userId, set: { count, changedAt: at } });
    },
    /** Forgets the failed password checks, or (`'all'`, an unlock) those and every wrong code of the user. */
    async clearFailures(userId: string, what: 'password' | 'all' = 'all'): Promise<void> {
      await clearPasswordFailures().execute({ userId });
      if (what === 'all') await db.delete(t.codeCheckFailures).where(eq(t.codeCheckFailures.userId, userId));
    },
    codeFailures: {
      async get(userId: string, kind: CodeKindCounted): Promise<CodeFailures | undefined> {
        const f = t.codeCheckFailures;
        const [row] = await db
          .select({ count: f.count, lastFailureAt: f.lastFailureAt })
          .from(f)
          .where(and(eq(f.userId, userId), eq(f.kind, kind)))
          .limit(1);
        return row;
      },
      async set(userId: string, kind: CodeKindCounted, count: number, at: Date): Promise<void> {
        const f = t.codeCheckFailures;
        await db
          .insert(f)
          .values({ userId, kind, count, lastFailureAt: at })
          .onConflictDoUpdate({ target: [f.userId, f.kind], set: { count, lastFailureAt: at } });
      },
      async clear(userId: string, kinds: CodeKindCounted[]): Promise<void> {
        const f = t.codeCheckFailures;
        await db.delete(f).where(and(eq(f.userId, userId), inArray(f.kind, kinds)));
      },
    },
    /** Marks a user who registered itself at the login page (domain/login/registration.ts). */
    async markSelfRegistered(userId: string, at: Date): Promise<void> {
      await db.insert(t.selfRegistrations).values({ userId, createdAt: at }).onConflictDoNothing();
    },
    async isSelfRegistered(userId: string): Promise<boolean> {
      const [row] = await db.select({ userId: t.selfRegistrations.userId }).from(t.selfRegistrations).where(eq(t.selfRegistrations.userId, userId)).limit(1);
      return row !== undefined;
    },
    ...otpRecords(db, t),
    /**
     * The user's row follows its trail (`sequence`) after an event that changes nothing of the user:
     * a password or code check that passed, or failed without locking. Not an authentication write:
     * every sign-in would otherwise empty every authentication cache (tokens, clients, userinfo) for
     * all API traffic beside it. The change date stays the last change's, as ZITADEL's does
     * (userinfo's `updated_at`).
     */
    async moveUserSequence(userId: string, sequence: number): Promise<void> {
      await moveSequence().execute({ userId, sequence });
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
        const [row] = await machineSecretByClientId().execute({ clientId });
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
    /**
     * The user's active grants on these projects, with the granting organisation's primary domain.
     * A grant given through a project grant counts only while that is active, and only with the
     * roles it still grants (so a change racing with the user grant's own cannot leak a role).
     */
    async grantedRoles(userId: string, projectIds: string[], activeState: string): Promise<Array<{ orgId: string; orgPrimaryDomain: string; projectId: string; roleKeys: string[] }>> {
      if (projectIds.length === 0) return [];
      const g = t.userGrants;
      const pg = t.projectGrants;
      const rows = await db
        .select({
          orgId: g.orgId,
          orgPrimaryDomain: t.orgs.primaryDomain,
          projectId: g.projectId,
          roleKeys: g.roleKeys,
          projectGrantId: g.projectGrantId,
          grantState: pg.state,
          grantRoleKeys: pg.roleKeys,
        })
        .from(g)
        .innerJoin(t.orgs, eq(t.orgs.id, g.orgId))
        .leftJoin(pg, eq(pg.id, g.projectGrantId))
        .where(and(eq(g.userId, userId), inArray(g.projectId, projectIds), eq(g.state, activeState)));
      return rows.flatMap(({ projectGrantId, grantState, grantRoleKeys, ...grant }) => {
        if (!projectGrantId) return [grant];
        if (grantState !== 'PROJECT_GRANT_STATE_ACTIVE') return [];
        return [{ ...grant, roleKeys: grant.roleKeys.filter((k) => grantRoleKeys?.includes(k)) }];
      });
    },
  };
}

/** A user's authenticator app (TOTP): its sealed secret, and the step of the last code taken (no code twice). */
function otpRecords(db: Db, t: Tables) {
  // Every password sign-in asks whether the user has an authenticator app (twice): prepared.
  const otpSecretByUser = once(() =>
    db
      .select()
      .from(t.userOtpSecrets)
      .where(eq(t.userOtpSecrets.userId, sql.placeholder('userId')))
      .limit(1)
      .prepare('user_otp_secrets_by_user'),
  );
  return {
    /** The time step of the user's last accepted TOTP code. */
    async lastOtpStep(userId: string): Promise<number | undefined> {
      const [row] = await db.select({ lastStep: t.otpChecks.lastStep }).from(t.otpChecks).where(eq(t.otpChecks.userId, userId)).limit(1);
      return row?.lastStep ?? undefined;
    },
    async setLastOtpStep(userId: string, lastStep: number, at: Date): Promise<void> {
      await db
        .insert(t.otpChecks)
        .values({ userId, lastStep, changedAt: at })
        .onConflictDoUpdate({ target: t.otpChecks.userId, set: { lastStep, changedAt: at } });
    },
    /** The user's TOTP secret (base32), if an authenticator app is set up. */
    async otpSecret(userId: string): Promise<string | undefined> {
      const [row] = await otpSecretByUser().execute({ userId });
      return row?.secret;
    },
    /** Rows whose secret does not start with `sealedPrefix` (stored by an earlier version). */
    async plainOtpSecrets(sealedPrefix: string, limit: number): Promise<Array<{ userId: string; secret: string }>> {
      return db
        .select({ userId: t.userOtpSecrets.userId, secret: t.userOtpSecrets.secret })
        .from(t.userOtpSecrets)
        .where(not(like(t.userOtpSecrets.secret, `${sealedPrefix}%`)))
        .limit(limit);
    },
    async otpSecretsPage(afterUserId: string, limit: number): Promise<Array<{ userId: string; secret: string }>> {
      return db
        .select({ userId: t.userOtpSecrets.userId, secret: t.userOtpSecrets.secret })
        .from(t.userOtpSecrets)
        .where(gt(t.userOtpSecrets.userId, afterUserId))
        .orderBy(asc(t.userOtpSecrets.userId))
        .limit(limit);
    },
    /** Replaces a secret only if it is still `expected` (another process may have sealed it first). */
    async replaceOtpSecret(userId: string, expected: string, secret: string): Promise<void> {
      await db
        .update(t.userOtpSecrets)
        .set({ secret })
        .where(and(eq(t.userOtpSecrets.userId, userId), eq(t.userOtpSecrets.secret, expected)));
    },
    async addOtpSecret(userId: string, secret: string, at: Date): Promise<void> {
      await db.insert(t.userOtpSecrets).values({ userId, secret, createdAt: at });
    },
    async removeOtpSecret(userId: string): Promise<void> {
      await db.delete(t.userOtpSecrets).where(eq(t.userOtpSecrets.userId, userId));
      await db.delete(t.otpChecks).where(eq(t.otpChecks.userId, userId));
      const f = t.codeCheckFailures;
      await db.delete(f).where(and(eq(f.userId, userId), inArray(f.kind, ['otp', 'otp_setup'])));
    },
  };
}
