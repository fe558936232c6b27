/**
 * A read-only Cloud Storage endpoint that serves files of this machine as objects: the two JSON API
 * calls an import makes (`GET /storage/v1/b/<bucket>/o/<object>` for the size, `…?alt=media` for the
 * bytes). For documents the emulator (test/support/gcs-emulator.ts, firebase-tools') cannot hold: it
 * takes uploads up to 130 MB in memory, a million users are ~350 MB. Objects are registered by
 * `serve(bucket, object, file)`; anything else is 404.
 */
import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { HOST } from './children.js';

export interface GcsFileServer {
  endpoint: string;
  serve(bucket: string, object: string, file: string): void;
  stop(): Promise<void>;
}

export async function startGcsFileServer(): Promise<GcsFileServer> {
  const objects = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    // With STORAGE_EMULATOR_HOST the client leaves out /storage/v1; with an explicit endpoint it does not.
    const match = /^(?:\/download)?(?:\/storage\/v1)?\/b\/([^/]+)\/o\/(.+)$/.exec(url.pathname);
    const file = match ? objects.get(`${decodeURIComponent(match[1])}/${decodeURIComponent(match[2])}`) : undefined;
    if (!match || !file || req.method !== 'GET') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 404, message: 'No such object' } }));
      return;
    }
    const size = statSync(file).size;
    if (url.searchParams.get('alt') === 'media') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(size) });
      createReadStream(file).pipe(res);
      return;
    }
    const [bucket, name] = [decodeURIComponent(match[1]), decodeURIComponent(match[2])];
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'storage#object', bucket, name, size: String(size), contentType: 'application/json' }));
  });
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://${HOST}:${port}`,
    serve: (bucket, object, file) => void objects.set(`${bucket}/${object}`, file),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
