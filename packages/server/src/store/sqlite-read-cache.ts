/**
 * Rows read on SQLite's reader connection, kept until the database changes.
 *
 * Why: the instance's text is read on every `GET /admin/v1/text/message/…` and for every mail
 * rendered, and a point read outside a transaction costs SQLite a read transaction of its own,
 * most of the read (BENCHMARKS.md round 11: 20 % of the text GET's CPU). `PRAGMA data_version`
 * costs half of that and tells whether any other connection (this process's writer, another
 * process on the file) has committed since it was last asked (the reader itself never writes).
 * While it is unchanged, what was read is still what the database holds, so the cache is exact:
 * never stale, only emptied more often than needed.
 *
 * A value is kept as given: callers get a copy made by `copy`, so nothing they change is served again.
 */
import type Database from 'better-sqlite3';

/** Most entries: the cache is emptied when it would grow past this. */
const MAX_ENTRIES = 1000;

export class SqliteReadCache<V> {
  private readonly dataVersion: Database.Statement;
  private version: unknown = undefined;
  /** `null`: read, and not there. */
  private readonly entries = new Map<string, V | null>();

  constructor(
    conn: Database.Database,
    private readonly copy: (value: V) => V,
  ) {
    this.dataVersion = conn.prepare('pragma data_version').pluck();
  }

  get(key: string, read: () => V | undefined): V | undefined {
    const version = this.dataVersion.get();
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
    }
    const kept = this.entries.get(key);
    if (kept !== undefined) return kept === null ? undefined : this.copy(kept);
    // Read after data_version: a commit in between is seen here and empties the cache next time.
    const value = read();
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, value === undefined ? null : this.copy(value));
    return value;
  }
}
