/**
 * Rows read on SQLite's reader connection, kept until the database changes.
 *
 * Why: the instance's text is read on every `GET /admin/v1/text/message/…` and for every mail
 * rendered, and a point read outside a transaction costs SQLite a read transaction of its own:
 * 20 % of the text GET's CPU in the bench (BENCHMARKS.md round 11), most of it the transaction.
 *
 * When a kept row is still what the database holds:
 * - this process's writes: the store counts its commits (`commits`), and a read after a commit
 *   asks the database again;
 * - anyone else's (another process on the file, a CLI tool): `PRAGMA data_version` changes when
 *   another connection has committed. Asking it costs a read transaction too, so it is asked once
 *   per event-loop turn: the reads of one turn are answered as of its first read, as if they had
 *   shared one read transaction begun then. Nothing older than the current turn is served.
 *
 * Callers get a copy made by `copy`, so nothing they change is served again.
 */
import type Database from 'better-sqlite3';

/** Most entries: the cache is emptied when it would grow past this. */
const MAX_ENTRIES = 1000;

export class SqliteReadCache<V> {
  private readonly dataVersion: Database.Statement;
  private version: unknown = undefined;
  private commitsSeen = -1;
  /** data_version was asked in this event-loop turn. */
  private askedThisTurn = false;
  /** `null`: read, and not there. */
  private readonly entries = new Map<string, V | null>();
  private readonly endTurn = () => {
    this.askedThisTurn = false;
  };

  constructor(
    conn: Database.Database,
    private readonly copy: (value: V) => V,
    /** How many transactions this process's store has committed. */
    private readonly commits: () => number,
  ) {
    this.dataVersion = conn.prepare('pragma data_version').pluck();
  }

  get(key: string, read: () => V | undefined): V | undefined {
    const commits = this.commits();
    if (!this.askedThisTurn || commits !== this.commitsSeen) {
      const version = this.dataVersion.get();
      if (version !== this.version || commits !== this.commitsSeen) {
        this.entries.clear();
        this.version = version;
        this.commitsSeen = commits;
      }
      if (!this.askedThisTurn) {
        this.askedThisTurn = true;
        setImmediate(this.endTurn);
      }
    }
    const kept = this.entries.get(key);
    if (kept !== undefined) return kept === null ? undefined : this.copy(kept);
    const value = read();
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, value === undefined ? null : this.copy(value));
    return value;
  }
}
