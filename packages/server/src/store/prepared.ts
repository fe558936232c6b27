/**
 * Hot queries (every request authenticates; every write appends an event) are built and
 * compiled once and then only executed: rebuilding a drizzle query per call cost more than
 * running it (platform notes §4: about 3× on an upsert; the bench profile showed query building
 * and SQLite's statement compilation as the largest share of a text write).
 *
 * `once(build)` defers the build to the first call. Repositories live as long as their
 * connection on SQLite (so each statement is compiled once per connection) and as long as one
 * transaction on PostgreSQL (where the statement's name lets node-postgres parse it once per
 * pooled connection).
 */
export function once<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}
