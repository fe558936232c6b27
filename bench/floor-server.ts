/**
 * The floor: the least any implementation of the text write has to do on this machine, to
 * tell how much of the gap to the bare endpoint is the service's and how much is the write's.
 *
 * node:http without a framework; the body parsed with JSON.parse and not validated; the token
 * hashed (sha-256, as the service's authentication cache does) but not looked up; then the
 * write's statements on SQLite, the service's own (store/sqlite-hot-path.ts: read the text,
 * next sequence, insert the event, upsert the text) in a savepoint each, with
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
import { sqliteHotPath } from '../packages/server/src/store/sqlite-hot-path.js';

const port = Number(process.env.PORT);
const file = process.env.DATABASE_FILE;
if (!port || !file) throw new Error('PORT and DATABASE_FILE are required');

const db = new Database(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
const migration = join(dirname(fileURLToPath(import.meta.url)), '..', 'packages', 'server', 'src', 'store', 'migrations', 'sqlite', '0000_initial.sql');
for (const statement of readFileSync(migration, 'utf8').split('--> statement-breakpoint')) db.exec(statement);

const OWNER = '100000000000000001';
// The service's own statements for the write (not a copy of their SQL), so the floor runs exactly what it runs.
const write = sqliteHotPath(db);
const control = {
  begin: db.prepare('BEGIN IMMEDIATE'),
  commit: db.prepare('COMMIT'),
  savepoint: db.prepare('SAVEPOINT tx'),
  release: db.prepare('RELEASE tx'),
};

interface Pending {
  fields: Record<string, string>;
  res: ServerResponse;
}
let pending: Pending[] = [];

async function writeGroup() {
  const group = pending;
  pending = [];
  const answers: [ServerResponse, string][] = [];
  control.begin.run();
  for (const { fields, res } of group) {
    control.savepoint.run();
    const current = await write.messageTexts.get(OWNER, 'VerifyEmail', 'en');
    const previous: Record<string, string | undefined> = current?.fields ?? {};
    const set = Object.fromEntries(Object.entries(fields).filter(([key, value]) => previous[key] !== value));
    const event = await write.appendEvent({
      aggregateType: 'instance',
      aggregateId: OWNER,
      type: 'instance.customtext.set',
      payload: { template: 'VerifyEmail', language: 'en', set, removed: [] },
      creator: 'admin',
      resourceOwner: OWNER,
    });
    await write.messageTexts.upsert({
      ownerId: OWNER,
      messageType: 'VerifyEmail',
      language: 'en',
      fields,
      sequence: event.sequence,
      createdAt: current?.createdAt ?? event.createdAt,
      changedAt: event.createdAt,
    });
    control.release.run();
    answers.push([res, JSON.stringify({ details: { sequence: String(event.sequence), changeDate: event.createdAt.toISOString(), resourceOwner: OWNER } })]);
  }
  control.commit.run();
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
    createHash('sha256')
      .update(req.headers.authorization ?? '')
      .digest('base64url');
    pending.push({ fields: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, string>, res });
    if (pending.length === 1) setImmediate(() => void writeGroup());
  });
}).listen(port, '127.0.0.1');

process.on('SIGTERM', () => {
  db.close();
  process.exit(0);
});
