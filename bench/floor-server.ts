/**
 * The floor: the least any implementation of the text write has to do on this machine, to
 * tell how much of the gap to the bare endpoint is the service's and how much is the write's.
 *
 * node:http without a framework; the body parsed with JSON.parse and not validated; the token
 * hashed (sha-256, as the service's authentication cache does) but not looked up; then the
 * write's statements on SQLite exactly as the service runs them (store/sqlite-hot-path.ts:
 * read the text, next sequence, insert the event, upsert the text) in a savepoint each, with
 * the requests read in one event-loop turn sharing one commit (store/sqlite.ts' group commit);
 * and the same `{details}` answer. The schema is the service's own migration.
 *
 * Not a model to copy: it skips everything a caller relies on (authentication, validation,
 * errors, limits). `GET /` answers 200 once ready.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const port = Number(process.env.PORT);
const file = process.env.DATABASE_FILE;
if (!port || !file) throw new Error('PORT and DATABASE_FILE are required');

const db = new Database(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
const migration = join(dirname(fileURLToPath(import.meta.url)), '..', 'packages', 'server', 'src', 'store', 'migrations', 'sqlite', '0000_initial.sql');
for (const statement of readFileSync(migration, 'utf8').split('--> statement-breakpoint')) db.exec(statement);

const OWNER = '100000000000000001';
const statements = {
  begin: db.prepare('BEGIN IMMEDIATE'),
  commit: db.prepare('COMMIT'),
  savepoint: db.prepare('SAVEPOINT tx'),
  release: db.prepare('RELEASE tx'),
  getText: db.prepare('select fields, created_at from message_texts where owner_id = ? and message_type = ? and language = ? limit 1'),
  nextSequence: db.prepare(
    `insert into aggregate_sequences (aggregate_type, aggregate_id, sequence) values (?, ?, 1)
       on conflict (aggregate_type, aggregate_id) do update set sequence = aggregate_sequences.sequence + 1 returning sequence`,
  ),
  insertEvent: db.prepare(
    `insert into events (aggregate_type, aggregate_id, sequence, type, payload, creator, resource_owner, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?) returning position`,
  ),
  upsertText: db.prepare(
    `insert into message_texts (owner_id, message_type, language, fields, sequence, created_at, changed_at) values (?, ?, ?, ?, ?, ?, ?)
       on conflict (owner_id, message_type, language) do update set fields = excluded.fields, sequence = excluded.sequence, changed_at = excluded.changed_at`,
  ),
};

interface Pending {
  fields: Record<string, string>;
  res: ServerResponse;
}
let pending: Pending[] = [];

function writeGroup() {
  const group = pending;
  pending = [];
  const answers: [ServerResponse, string][] = [];
  statements.begin.run();
  for (const { fields, res } of group) {
    statements.savepoint.run();
    const current = statements.getText.get(OWNER, 'VerifyEmail', 'en') as { fields: string; created_at: number } | undefined;
    const previous = current ? (JSON.parse(current.fields) as Record<string, string>) : {};
    const set = Object.fromEntries(Object.entries(fields).filter(([key, value]) => previous[key] !== value));
    const { sequence } = statements.nextSequence.get('instance', OWNER) as { sequence: number };
    const now = Date.now();
    statements.insertEvent.get('instance', OWNER, sequence, 'instance.customtext.set', JSON.stringify({ template: 'VerifyEmail', language: 'en', set, removed: [] }), 'admin', OWNER, now);
    statements.upsertText.run(OWNER, 'VerifyEmail', 'en', JSON.stringify(fields), sequence, current?.created_at ?? now, now);
    statements.release.run();
    answers.push([res, JSON.stringify({ details: { sequence: String(sequence), changeDate: new Date(now).toISOString(), resourceOwner: OWNER } })]);
  }
  statements.commit.run();
  for (const [res, body] of answers) res.writeHead(200, { 'content-type': 'application/json' }).end(body);
}

createServer((req, res) => {
  if (req.method !== 'PUT') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ready":true}');
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    createHash('sha256').update(req.headers.authorization ?? '').digest('base64url');
    pending.push({ fields: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, string>, res });
    if (pending.length === 1) setImmediate(writeGroup);
  });
}).listen(port, '127.0.0.1');

process.on('SIGTERM', () => {
  db.close();
  process.exit(0);
});
