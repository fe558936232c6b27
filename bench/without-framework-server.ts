/**
 * A lower bound of the text write as the service does it, without any HTTP framework: node:http,
 * the body JSON.parse'd and not validated, then the service's own authentication
 * (auth/authenticate.ts, with its caches) and its own domain write (setMessageText, group
 * commit and all), answered with its `{details}`. Against the floor (bench/floor-server.ts), what
 * the service's logic costs; against the service, what everything HTTP does (Hono, routing,
 * validation, request ids, limits, error bodies).
 *
 * Not a model to copy: no validation, limits or error bodies (a failure is a bare 500).
 * `GET /` answers 200 once ready.
 */
import { createServer } from 'node:http';
import { AuthCache } from '../packages/server/src/auth/auth-cache.js';
import { authenticate, personalAccessTokenVerifier } from '../packages/server/src/auth/authenticate.js';
import type { Permissions } from '../packages/server/src/domain/permissions.js';
import { setMessageText } from '../packages/server/src/domain/texts/custom-message-texts.js';
import { MESSAGE_TYPES } from '../packages/server/src/domain/texts/message-text.js';
import { openServiceCore } from './support/service-core.js';

const { store, instanceId } = await openServiceCore();
const verifiers = [personalAccessTokenVerifier(store)];
const permissions = new AuthCache<Permissions>(store);
const TEXT_PATH = '/admin/v1/text/message/verifyemail/';

createServer((req, res) => {
  if (req.method !== 'PUT' || !req.url?.startsWith(TEXT_PATH)) {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ready":true}');
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', async () => {
    try {
      const ctx = await authenticate(store, verifiers, instanceId, req.headers.authorization, req.headers['x-service-orgid'] as string | undefined, permissions);
      const fields = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, string>;
      const result = await setMessageText(store, ctx, MESSAGE_TYPES.verifyEmail, req.url!.slice(TEXT_PATH.length), fields);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    } catch (error) {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ message: String(error) }));
    }
  });
}).listen(Number(process.env.PORT), '127.0.0.1');
