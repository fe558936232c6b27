/**
 * The event log's last position that no transaction can still fill in below, on PostgreSQL: the
 * checkpoint of an incremental export (domain/transfer/changes.ts).
 *
 * On PostgreSQL positions (a serial) are taken when a transaction inserts its event, and
 * transactions commit in any order: the group commit's runners (postgres-group-commit.ts), other
 * processes, an import. A reader may see position 11 while 10 is not yet committed; a checkpoint of
 * 11 would then skip 10 for good. Every position below the highest visible one, M, that is not
 * visible was taken before it, so by a transaction in progress when M was read (its id in the
 * snapshot's `xip`) or one rolled back. So M is settled once those transactions have ended:
 * waited for here, up to SETTLE_MS; if one still runs (a long import), undefined, and the
 * export keeps its checkpoint where it was (it still answers what it sees; applying that again
 * next time is harmless). SQLite has one writer, whose commits come in position order: its
 * last position is settled as read.
 */
import type pg from 'pg';

const SETTLE_MS = 1000;
const POLL_MS = 10;

export function postgresSettledPosition(client: pg.Pool | pg.ClientBase): () => Promise<number | undefined> {
  return async () => {
    // One statement, one snapshot: the highest visible position and the writers then in progress.
    const { rows } = await client.query<{ last: string | null; xip: string[] }>('select (select max(position) from events) as last, array(select pg_snapshot_xip(pg_current_snapshot())::text) as xip');
    const last = Number(rows[0].last ?? 0);
    const waiting = rows[0].xip;
    const until = performance.now() + SETTLE_MS;
    while (waiting.length) {
      const { rows: running } = await client.query<{ n: number }>("select count(*)::int as n from unnest($1::text[]) as x where pg_xact_status(x::xid8) = 'in progress'", [waiting]);
      if (running[0].n === 0) break;
      if (performance.now() > until) return undefined;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return last;
  };
}
