import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { once } from '../prepared.js';
import type { MessageTextFields, Tables } from '../schema.js';

export type MessageTextRow = Tables['messageTexts']['$inferSelect'];

/** A copy a caller may change without changing what a cache serves next (store/postgres-text-writes.ts, sqlite-read-cache.ts). */
export const copyTextRow = (row: MessageTextRow): MessageTextRow => ({
  ...row,
  fields: { ...row.fields },
  createdAt: new Date(row.createdAt.getTime()),
  changedAt: new Date(row.changedAt.getTime()),
});

export function messageTextRepository(db: Db, t: Tables) {
  const key = (ownerId: string, messageType: string, language: string) => and(eq(t.messageTexts.ownerId, ownerId), eq(t.messageTexts.messageType, messageType), eq(t.messageTexts.language, language));
  // Reading one text and writing one are the text write's fast path: each dialect's own statements
  // (DialectStatements.messageTexts, composed from store/text-write-sql.ts), not drizzle's.
  return {
    async listByOwner(ownerId: string): Promise<MessageTextRow[]> {
      return db.select().from(t.messageTexts).where(eq(t.messageTexts.ownerId, ownerId));
    },
    async remove(ownerId: string, messageType: string, language: string): Promise<void> {
      await db.delete(t.messageTexts).where(key(ownerId, messageType, language));
    },
    async update(ownerId: string, messageType: string, language: string, fields: MessageTextFields, sequence: number, changedAt: Date) {
      await db
        .update(t.messageTexts)
        .set({ fields, sequence, changedAt })
        .where(key(ownerId, messageType, language));
    },
  };
}

export type LoginTextRow = Tables['loginTexts']['$inferSelect'];

/** Custom login texts (domain/texts/login-texts.ts): one row per owner and language. */
export function loginTextRepository(db: Db, t: Tables) {
  // Every login page reads its texts (the instance's and the organisation's): prepared.
  const byOwnerLanguage = once(() =>
    db
      .select()
      .from(t.loginTexts)
      .where(and(eq(t.loginTexts.ownerId, sql.placeholder('ownerId')), eq(t.loginTexts.language, sql.placeholder('language'))))
      .limit(1)
      .prepare('login_texts_by_owner_language'),
  );
  return {
    async get(ownerId: string, language: string): Promise<LoginTextRow | undefined> {
      const [row] = await byOwnerLanguage().execute({ ownerId, language });
      return row;
    },
    async upsert(row: LoginTextRow): Promise<void> {
      await db
        .insert(t.loginTexts)
        .values(row)
        .onConflictDoUpdate({
          target: [t.loginTexts.ownerId, t.loginTexts.language],
          set: { screens: row.screens, sequence: row.sequence, changedAt: row.changedAt },
        });
    },
    async remove(ownerId: string, language: string): Promise<void> {
      await db.delete(t.loginTexts).where(and(eq(t.loginTexts.ownerId, ownerId), eq(t.loginTexts.language, language)));
    },
  };
}
