/**
 * The baseline: the same HTTP stack as the service (hono + @hono/node-server on one Node
 * process) answering a small JSON object and doing nothing else. Run as a child process so
 * it gets the same CPU share as the real server does.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.get('/', (c) => c.json({ ok: true, service: 'bare' }));

const port = Number(process.env.PORT);
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
process.on('SIGTERM', () => process.exit(0));
