import { and, eq, sql } from 'drizzle-orm';
import { once } from '../prepared.js';
import type { MessageTextFields, Tables } from '../schema.js';
import type { Db } from '../store.js';

export type MessageTextRow = Tables['messageTexts']['$inferSelect'];

/** A copy a caller may change without changing what a cache serves next (text-memo.ts, sqlite-read-cache.ts). */
export const copyTextRow = (row: MessageTextRow): MessageTextRow => ({
  ...row,
  fields: { ...row.fields },
  createdAt: new Date(row.createdAt.getTime()),
  changedAt: new Date(row.changedAt.getTime()),
});

const excluded = (column: { name: string }) => sql.raw(`excluded."${column.name}"`);

export function messageTextRepository(db: Db, t: Tables) {
  const key = (ownerId: string, messageType: string, language: string) =>
    and(
      eq(t.messageTexts.ownerId, ownerId),
      eq(t.messageTexts.messageType, messageType),
      eq(t.messageTexts.language, language),
    );
  // The text write reads and upserts one row per request: both prepared (see prepared.ts).
  const getByKey = once(() =>
    db
      .select()
      .from(t.messageTexts)
      .where(
        and(
          eq(t.messageTexts.ownerId, sql.placeholder('ownerId')),
          eq(t.messageTexts.messageType, sql.placeholder('messageType')),
          eq(t.messageTexts.language, sql.placeholder('language')),
        ),
      )
      .limit(1)
      .prepare('message_texts_get'),
  );
  const upsertRow = once(() =>
    db
      .insert(t.messageTexts)
      .values({
        ownerId: sql.placeholder('ownerId'),
        messageType: sql.placeholder('messageType'),
        language: sql.placeholder('language'),
        fields: sql.placeholder('fields'),
        sequence: sql.placeholder('sequence'),
        createdAt: sql.placeholder('createdAt'),
        changedAt: sql.placeholder('changedAt'),
      })
      .onConflictDoUpdate({
        target: [t.messageTexts.ownerId, t.messageTexts.messageType, t.messageTexts.language],
        // The values of the row just proposed (`excluded`, the same in SQLite and PostgreSQL).
        set: { fields: excluded(t.messageTexts.fields), sequence: excluded(t.messageTexts.sequence), changedAt: excluded(t.messageTexts.changedAt) },
      })
      .prepare('message_texts_upsert'),
  );
  return {
    async get(ownerId: string, messageType: string, language: string): Promise<MessageTextRow | undefined> {
      const [row] = await getByKey().execute({ ownerId, messageType, language });
      return row;
    },
    async listByOwner(ownerId: string): Promise<MessageTextRow[]> {
      return db.select().from(t.messageTexts).where(eq(t.messageTexts.ownerId, ownerId));
    },
    async upsert(row: MessageTextRow): Promise<void> {
      await upsertRow().execute(row);
    },
    async remove(ownerId: string, messageType: string, language: string): Promise<void> {
      await db.delete(t.messageTexts).where(key(ownerId, messageType, language));
    },
    async update(ownerId: string, messageType: string, language: string, fields: MessageTextFields, sequence: number, changedAt: Date) {
      await db.update(t.messageTexts).set({ fields, sequence, changedAt }).where(key(ownerId, messageType, language));
    },
  };
}

export type LoginTextRow = Tables['loginTexts']['$inferSelect'];

/** Custom login texts (domain/texts/login-texts.ts): one row per owner and language. */
export function loginTextRepository(db: Db, t: Tables) {
  return {
    async get(ownerId: string, language: string): Promise<LoginTextRow | undefined> {
      const [row] = await db.select().from(t.loginTexts).where(and(eq(t.loginTexts.ownerId, ownerId), eq(t.loginTexts.language, language))).limit(1);
      return row;
    },
    async upsert(row: LoginTextRow): Promise<void> {
      await db.insert(t.loginTexts).values(row).onConflictDoUpdate({
        target: [t.loginTexts.ownerId, t.loginTexts.language],
        set: { screens: row.screens, sequence: row.sequence, changedAt: row.changedAt },
      });
    },
    async remove(ownerId: string, language: string): Promise<void> {
      await db.delete(t.loginTexts).where(and(eq(t.loginTexts.ownerId, ownerId), eq(t.loginTexts.language, language)));
    },
  };
}
