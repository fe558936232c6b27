/**
 * Message texts read and written through drizzle's query builder, from the schema alone: the
 * reference the dialects' hand-written statements (store/text-write-sql.ts) are held to by the
 * hot-path tests. The service itself never uses these.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { MessageTextStatements } from '../../src/store/repositories/index.js';
import type { Tables } from '../../src/store/schema.js';
import type { Db } from '../../src/store/store.js';

export function drizzleMessageTexts(db: Db, t: Tables): MessageTextStatements {
  return {
    async get(ownerId, messageType, language) {
      const [row] = await db
        .select()
        .from(t.messageTexts)
        .where(and(eq(t.messageTexts.ownerId, ownerId), eq(t.messageTexts.messageType, messageType), eq(t.messageTexts.language, language)))
        .limit(1);
      return row;
    },
    async upsert(row) {
      const excluded = (column: { name: string }) => sql.raw(`excluded."${column.name}"`);
      await db
        .insert(t.messageTexts)
        .values(row)
        .onConflictDoUpdate({
          target: [t.messageTexts.ownerId, t.messageTexts.messageType, t.messageTexts.language],
          set: { fields: excluded(t.messageTexts.fields), sequence: excluded(t.messageTexts.sequence), changedAt: excluded(t.messageTexts.changedAt) },
        });
    },
  };
}
