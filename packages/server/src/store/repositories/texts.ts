import { and, eq } from 'drizzle-orm';
import type { MessageTextFields, Tables } from '../schema.js';
import type { Db } from '../store.js';

export type MessageTextRow = Tables['messageTexts']['$inferSelect'];

export function messageTextRepository(db: Db, t: Tables) {
  const key = (ownerId: string, messageType: string, language: string) =>
    and(
      eq(t.messageTexts.ownerId, ownerId),
      eq(t.messageTexts.messageType, messageType),
      eq(t.messageTexts.language, language),
    );
  return {
    async get(ownerId: string, messageType: string, language: string): Promise<MessageTextRow | undefined> {
      const [row] = await db.select().from(t.messageTexts).where(key(ownerId, messageType, language)).limit(1);
      return row;
    },
    async listByOwner(ownerId: string): Promise<MessageTextRow[]> {
      return db.select().from(t.messageTexts).where(eq(t.messageTexts.ownerId, ownerId));
    },
    async upsert(row: MessageTextRow): Promise<void> {
      await db
        .insert(t.messageTexts)
        .values(row)
        .onConflictDoUpdate({
          target: [t.messageTexts.ownerId, t.messageTexts.messageType, t.messageTexts.language],
          set: { fields: row.fields, sequence: row.sequence, changedAt: row.changedAt },
        });
    },
    async remove(ownerId: string, messageType: string, language: string): Promise<void> {
      await db.delete(t.messageTexts).where(key(ownerId, messageType, language));
    },
    async update(ownerId: string, messageType: string, language: string, fields: MessageTextFields, sequence: number, changedAt: Date) {
      await db.update(t.messageTexts).set({ fields, sequence, changedAt }).where(key(ownerId, messageType, language));
    },
  };
}
