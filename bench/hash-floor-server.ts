/**
 * The floor of a sign-in (issue 34): only the password check, as the service runs it — the same
 * default hash (argon2id, passwords.ts), verified by the same pool of worker threads
 * (password-verifier.ts, its default worker count) in one process. `POST /` → 200 after one
 * verification of `PASSWORD` against its hash. The pool's queue bounds are raised so that the load
 * generator's connections wait rather than being refused: this measures what the hash allows.
 */
import { createServer } from 'node:http';
import { PasswordVerifier } from '../packages/server/src/auth/password-verifier.js';
import { hashPassword } from '../packages/server/src/auth/passwords.js';

export const FLOOR_PASSWORD = 'Bench-Passw0rd!';
const verifier = new PasswordVerifier({ maxQueued: 1000, maxQueuedPerClient: 1000 });
const encoded = await hashPassword(FLOOR_PASSWORD);

const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    return;
  }
  req.resume();
  req.on('end', () => {
    verifier.verify(FLOOR_PASSWORD, encoded).then(
      (check) => res.writeHead(check.ok ? 200 : 401, { 'content-type': 'application/json' }).end(`{"ok":${check.ok}}`),
      (error: Error) => res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: error.message })),
    );
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  void verifier.close();
  process.exit(0);
});
