/**
 * The CLI's upload of a document (src/cli/http.ts, streamedRequest): what has been sent is not
 * kept. With fetch's default redirect mode undici tees a streamed body (to follow a redirect) and
 * the branch not sent keeps every chunk: uploading a million users' document (346 MiB) grew the
 * CLI by ~380 MiB (BENCHMARKS.md, "Imports at a million users"). The service here is a plain HTTP
 * server on loopback that counts what it is sent.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { request, streamedRequest } from '../src/cli/http.js';

const MiB = 1024 * 1024;
// A full collection before each reading: what is left is what something still holds, not garbage.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

it('keeps nothing of what it has sent', async () => {
  const server = createServer((req, res) => {
    let received = 0;
    req.on('data', (chunk: Buffer) => (received += chunk.length));
    req.on('end', () => res.end(JSON.stringify({ received })));
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    // Large enough that keeping it (the fault: all of it) stands far from what a loaded machine
    // leaves held at the moment of reading (a quarter to a third of it on Node 20 beside other suites).
    const total = 128 * MiB;
    async function* document() {
      // Fresh buffers, as a file read gives them.
      for (let sent = 0; sent < total; sent += 64 * 1024) yield Buffer.alloc(64 * 1024, 0x20);
    }
    gc();
    const before = process.memoryUsage().arrayBuffers;
    const { port } = server.address() as AddressInfo;
    const res = await request(`http://127.0.0.1:${port}/`, { method: 'POST', ...streamedRequest(document()) });
    expect(((await res.json()) as { received: number }).received).toBe(total);
    // While the request and its answer are still referenced (as the CLI holds them while it follows the job).
    gc();
    expect((process.memoryUsage().arrayBuffers - before) / MiB).toBeLessThan(total / MiB / 2);
    expect(res.status).toBe(200);
  } finally {
    server.close();
  }
}, 60_000);
