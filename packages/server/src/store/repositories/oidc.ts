import { and, asc, desc, eq, gt, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { once } from '../prepared.js';
import type { Tables } from '../schema.js';

export type OidcPayloadRow = Tables['oidcPayloads']['$inferSelect'];
export type OidcKeyRow = Tables['oidcKeys']['$inferSelect'];

/** Storage of oidc-provider's models and of the authorization server's keys. */
export function oidcRepository(db: Db, t: Tables) {
  const p = t.oidcPayloads;
  const k = t.oidcKeys;
  const alive = (now: Date) => or(isNull(p.expiresAt), gt(p.expiresAt, now));
  // Every opaque token, code and session oidc-provider looks up goes through here: prepared. The
  // expiry is checked on the row (a placeholder cannot carry a Date on both dialects).
  const byKindId = once(() =>
    db
      .select()
      .from(p)
      .where(and(eq(p.kind, sql.placeholder('kind')), eq(p.id, sql.placeholder('id'))))
      .limit(1)
      .prepare('oidc_payloads_by_kind_id'),
  );
  // A sign-in writes five rows and reads, consumes and deletes one each (bench `signin`): prepared
  // too. drizzle encodes a placeholder's value with its column's encoder even when it is null,
  // which a time column's cannot take: the expiry is a bare placeholder, encoded by `toDriver`.
  const expiresAt = sql`${sql.placeholder('expiresAt')}`;
  const excluded = (column: { name: string }) => sql`excluded.${sql.identifier(column.name)}`;
  const upsertRow = once(() =>
    db
      .insert(p)
      .values({
        kind: sql.placeholder('kind'),
        id: sql.placeholder('id'),
        payload: sql.placeholder('payload'),
        grantId: sql.placeholder('grantId'),
        uid: sql.placeholder('uid'),
        userCode: sql.placeholder('userCode'),
        consumedAt: sql.placeholder('consumedAt'),
        expiresAt,
      })
      .onConflictDoUpdate({
        target: [p.kind, p.id],
        // The row that was to be inserted (`excluded`, on both dialects) replaces the stored one.
        set: { payload: excluded(p.payload), grantId: excluded(p.grantId), uid: excluded(p.uid), userCode: excluded(p.userCode), consumedAt: excluded(p.consumedAt), expiresAt: excluded(p.expiresAt) },
      })
      .prepare('oidc_payloads_upsert'),
  );
  const toDriver = (at: Date | null) => (at === null ? null : p.expiresAt.mapToDriverValue(at));
  const byKindUid = once(() =>
    db
      .select()
      .from(p)
      .where(and(eq(p.kind, sql.placeholder('kind')), eq(p.uid, sql.placeholder('uid'))))
      .prepare('oidc_payloads_by_kind_uid'),
  );
  const consumeRow = once(() =>
    db
      .update(p)
      .set({ consumedAt: sql`${sql.placeholder('at')}` })
      .where(and(eq(p.kind, sql.placeholder('kind')), eq(p.id, sql.placeholder('id'))))
      .prepare('oidc_payloads_consume'),
  );
  const destroyRow = once(() =>
    db
      .delete(p)
      .where(and(eq(p.kind, sql.placeholder('kind')), eq(p.id, sql.placeholder('id'))))
      .prepare('oidc_payloads_destroy'),
  );
  const isAlive = (row: OidcPayloadRow, now: Date) => row.expiresAt === null || row.expiresAt.getTime() > now.getTime();
  // One key among three kinds: what oidc-provider's token lookup (introspection, revocation) asks at once.
  const byIdOfKinds = once(() =>
    db
      .select()
      .from(p)
      .where(and(or(eq(p.kind, sql.placeholder('kind1')), eq(p.kind, sql.placeholder('kind2')), eq(p.kind, sql.placeholder('kind3'))), eq(p.id, sql.placeholder('id'))))
      .prepare('oidc_payloads_by_id_of_kinds'),
  );
  return {
    payloads: {
      async upsert(row: OidcPayloadRow): Promise<void> {
        await upsertRow().execute({ ...row, expiresAt: toDriver(row.expiresAt) });
      },
      async find(kind: string, id: string, now: Date): Promise<OidcPayloadRow | undefined> {
        const [row] = await byKindId().execute({ kind, id });
        return row && isAlive(row, now) ? row : undefined;
      },
      /** The unexpired rows stored under `id` in any of three kinds (at most one each). */
      async findOfKinds(kinds: readonly [string, string, string], id: string, now: Date): Promise<OidcPayloadRow[]> {
        const rows = await byIdOfKinds().execute({ kind1: kinds[0], kind2: kinds[1], kind3: kinds[2], id });
        return rows.filter((row) => isAlive(row, now));
      },
      async findByUid(kind: string, uid: string, now: Date): Promise<OidcPayloadRow | undefined> {
        return (await byKindUid().execute({ kind, uid })).find((row) => isAlive(row, now));
      },
      async findByUserCode(kind: string, userCode: string, now: Date): Promise<OidcPayloadRow | undefined> {
        const [row] = await db
          .select()
          .from(p)
          .where(and(eq(p.kind, kind), eq(p.userCode, userCode), alive(now)))
          .limit(1);
        return row;
      },
      async consume(kind: string, id: string, at: number): Promise<void> {
        await consumeRow().execute({ kind, id, at });
      },
      async destroy(kind: string, id: string): Promise<void> {
        await destroyRow().execute({ kind, id });
      },
      async revokeByGrantId(kind: string, grantId: string): Promise<void> {
        await db.delete(p).where(and(eq(p.kind, kind), eq(p.grantId, grantId)));
      },
      /** Rows of these kinds whose payload holds a `jti` (tokens stored by an earlier version, see oidc/adapter.ts). */
      async withJti(kinds: string[]): Promise<OidcPayloadRow[]> {
        return db
          .select()
          .from(p)
          .where(and(inArray(p.kind, kinds), sql`cast(${p.payload} as text) like '%"jti"%'`));
      },
      async deleteExpired(now: Date): Promise<void> {
        await db.delete(p).where(lte(p.expiresAt, now));
      },
    },
    keys: {
      /** Unexpired keys of a kind, newest first. */
      async live(kind: string, now: Date): Promise<OidcKeyRow[]> {
        return db
          .select()
          .from(k)
          .where(and(eq(k.kind, kind), or(isNull(k.expiresAt), gt(k.expiresAt, now))))
          .orderBy(desc(k.createdAt), asc(k.id));
      },
      /** Every key, expired ones included (re-sealing after an operator-key rotation). */
      async all(): Promise<OidcKeyRow[]> {
        return db.select().from(k).orderBy(asc(k.createdAt), asc(k.id));
      },
      async insert(row: OidcKeyRow): Promise<void> {
        await db.insert(k).values(row);
      },
      async setMaterial(id: string, material: Record<string, unknown>): Promise<void> {
        await db.update(k).set({ material }).where(eq(k.id, id));
      },
      /** Sets an expiry on every key of the kind that has none (they are being rotated out). */
      /** Every key of `kind` expires by `expiresAt` at the latest (one already expiring sooner keeps its time). */
      async expireAll(kind: string, expiresAt: Date): Promise<void> {
        await db
          .update(k)
          .set({ expiresAt })
          .where(and(eq(k.kind, kind), or(isNull(k.expiresAt), gt(k.expiresAt, expiresAt))));
      },
    },
  };
}
