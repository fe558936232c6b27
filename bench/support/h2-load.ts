/**
 * A load generator for unary gRPC calls over HTTP/2 with prior knowledge (h2c), shaped like
 * autocannon's runs in load.ts (the same Measurement, warm-up then measured window on the same
 * connections), because autocannon speaks HTTP/1.1 only. `connections` calls are kept in flight,
 * by default each on its own HTTP/2 session, as autocannon keeps one request per connection, so the
 * two protocols are compared at the same concurrency; `sessions` shares them out over fewer.
 *
 * A call counts as ok when its trailers say grpc-status 0; any other status, or a stream error,
 * counts as non-2xx / error.
 */
import { type ClientHttp2Session, connect, constants } from 'node:http2';
import { type LoadSettings, type Measurement, windowMeasurement } from './measurement.js';

export interface GrpcTarget {
  /** e.g. http://127.0.0.1:8080 */
  origin: string;
  /** `/package.Service/Method` */
  path: string;
  /** The request message, serialized (protobuf binary); a function makes one per call (e.g. each a change). */
  message: Uint8Array | (() => Uint8Array);
  /** Extra metadata (authorization, x-zitadel-orgid …). */
  headers?: Record<string, string>;
  /**
   * HTTP/2 sessions the `connections` calls in flight share: by default one each, as autocannon
   * keeps one request per connection; 1 is how a gRPC SDK's channel (nice-grpc, grpc-go) connects.
   */
  sessions?: number;
}

/** gRPC's length-prefixed message: a flag byte (0: not compressed), the length, the bytes. */
export function grpcFrame(message: Uint8Array): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

export async function measureGrpc(target: GrpcTarget, settings: LoadSettings, serverCpuSeconds?: () => number | undefined): Promise<Measurement> {
  const fixed = typeof target.message === 'function' ? undefined : grpcFrame(target.message);
  const nextBody = typeof target.message === 'function' ? () => grpcFrame((target.message as () => Uint8Array)()) : () => fixed!;
  const headers = {
    [constants.HTTP2_HEADER_METHOD]: 'POST',
    [constants.HTTP2_HEADER_PATH]: target.path,
    'content-type': 'application/grpc',
    te: 'trailers',
    ...target.headers,
  };
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let sent = 0;
  let windowStart = Number.POSITIVE_INFINITY;
  let cpuAtWindowStart: number | undefined;
  const end = performance.now() + (settings.warmup + settings.duration) * 1000;
  const timer = setTimeout(() => {
    windowStart = performance.now();
    cpuAtWindowStart = serverCpuSeconds?.();
  }, settings.warmup * 1000);

  const call = (session: ClientHttp2Session) =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      sent++;
      const stream = session.request(headers);
      let status: string | undefined;
      stream.on('response', (h) => {
        if (h['grpc-status'] !== undefined) status = String(h['grpc-status']); // trailers-only answer
      });
      stream.on('trailers', (t) => {
        status = String(t['grpc-status']);
      });
      stream.on('data', () => undefined);
      stream.on('error', () => undefined);
      stream.on('close', () => {
        const finished = performance.now();
        if (status === undefined) errors++;
        else {
          statusCodes[`grpc-${status}`] = (statusCodes[`grpc-${status}`] ?? 0) + 1;
          if (status === '0') ok++;
          else non2xx++;
          if (finished >= windowStart) latencies.push(finished - started);
        }
        resolve();
      });
      stream.end(nextBody());
    });

  const sessionCount = Math.min(settings.connections, target.sessions ?? settings.connections);
  const sessions = await Promise.all(
    Array.from(
      { length: sessionCount },
      () =>
        new Promise<ClientHttp2Session>((resolve, reject) => {
          const session = connect(target.origin);
          session.once('connect', () => resolve(session));
          session.once('error', reject);
        }),
    ),
  );
  // Call loops dealt out over the sessions in turn (50 over 1: all on one).
  await Promise.all(
    Array.from({ length: settings.connections }, async (_, i) => {
      const session = sessions[i % sessionCount];
      while (performance.now() < end && !session.closed && !session.destroyed) await call(session);
    }),
  );
  clearTimeout(timer);
  const windowSeconds = (performance.now() - windowStart) / 1000;
  const cpuAtEnd = serverCpuSeconds?.();
  const cpuUsed = cpuAtWindowStart !== undefined && cpuAtEnd !== undefined ? cpuAtEnd - cpuAtWindowStart : undefined;
  for (const session of sessions) session.close();
  return windowMeasurement(latencies, windowSeconds, cpuUsed, { ok, non2xx, errors, statusCodes, sent });
}
