/**
 * A lower bound of the text write on the design's HTTP stack: Hono on @hono/node-server with the
 * service's authentication middleware (http/middleware/authenticate.ts) and its domain write, the
 * body read with `c.req.json()` and not validated; no request id, body limit, input validation,
 * strict bodies or error handler. What the service's write cannot go below while it is served by
 * Hono, measured beside the floor and the service (BENCHMARKS.md, round 12).
 *
 * Not a model to copy: it skips validation, limits and error bodies. `GET /` answers 200 once ready.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { personalAccessTokenVerifier } from '../packages/server/src/auth/authenticate.js';
import { setMessageText } from '../packages/server/src/domain/texts/custom-message-texts.js';
import { MESSAGE_TYPES } from '../packages/server/src/domain/texts/message-text.js';
import type { AppEnv } from '../packages/server/src/http/env.js';
import { requireAuth } from '../packages/server/src/http/middleware/authenticate.js';
import { openServiceCore } from './support/service-core.js';

const { store, instanceId } = await openServiceCore();
const app = new Hono<AppEnv>();
app.get('/', (c) => c.json({ ready: true }));
app.put(
  '/admin/v1/text/message/verifyemail/:language',
  requireAuth(store, [personalAccessTokenVerifier(store)], () => instanceId),
  async (c) => c.json(await setMessageText(store, c.get('ctx'), MESSAGE_TYPES.verifyEmail, c.req.param('language'), await c.req.json()), 200),
);
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' });
