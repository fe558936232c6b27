/**
 * Hot queries (every request authenticates; every write appends an event) are built and
 * compiled once and then only executed: rebuilding a drizzle query per call cost more than
 * running it (platform notes §4: about 3× on an upsert; the bench profile showed query building
 * and SQLite's statement compilation as the largest share of a text write).
 *
 * `once(build)` defers the build to the first call. Repositories live as long as their
 * connection (SQLite's two, and each pooled PostgreSQL connection, see postgres-connection.ts), so each
 * statement is built and compiled once per connection. Writes to the tables authentication
 * reads must not be prepared (auth-writes.ts).
 */
export function once<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}
