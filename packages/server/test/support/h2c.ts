/**
 * An HTTP/2 client with prior knowledge over plaintext (h2c), as gRPC clients open against an
 * http:// URL: node's own http2 client, one session per call of `h2cSession`.
 */
import { connect as connectHttp2, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import { connect as connectTcp } from 'node:net';

export interface H2cAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body as JSON (throws when it is none). */
  json: () => any;
}

/**
 * A session to 127.0.0.1:`port` (from `localAddress` when given), once its SETTINGS were
 * exchanged. Errors are kept, not thrown: a test looks at `closed`.
 */
export async function h2cSession(port: number, options: { host?: string; localAddress?: string } = {}): Promise<{ session: ClientHttp2Session; closed: Promise<number> }> {
  const host = options.host ?? '127.0.0.1';
  const started = Date.now();
  const session = connectHttp2(`http://${host.includes(':') ? `[${host}]` : host}:${port}`, {
    createConnection: () => connectTcp({ host, port, localAddress: options.localAddress }),
  });
  session.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => session.once('close', () => resolve(Date.now() - started)));
  await new Promise<void>((resolve) => {
    session.once('remoteSettings', () => resolve());
    session.once('close', () => resolve());
  });
  return { session, closed };
}

/**
 * One request on `session`: `body` sent whole then the stream ended, unless `end: false` (the
 * stream is then returned open, for the caller to go on writing).
 */
export function h2cRequest(
  session: ClientHttp2Session,
  method: string,
  path: string,
  options: { headers?: OutgoingHttpHeaders; body?: string | Buffer; end?: boolean } = {},
): { stream: ClientHttp2Stream; answer: Promise<H2cAnswer> } {
  const stream = session.request({ ':method': method, ':path': path, ...options.headers }, { endStream: false });
  const answer = new Promise<H2cAnswer>((resolve, reject) => {
    let headers: IncomingHttpHeaders = {};
    let text = '';
    stream.setEncoding('utf8');
    stream.on('response', (h) => (headers = h));
    stream.on('data', (chunk: string) => (text += chunk));
    stream.on('end', () => resolve({ status: Number(headers[':status']), headers, text, json: () => JSON.parse(text) }));
    stream.on('error', reject);
  });
  if (options.body !== undefined) stream.write(options.body);
  if (options.end !== false) stream.end();
  return { stream, answer };
}

/** JSON in and out with a bearer token, on one session. */
export function h2cJson(session: ClientHttp2Session, token: string | undefined) {
  return (method: string, path: string, body?: unknown, headers: OutgoingHttpHeaders = {}) =>
    h2cRequest(session, method, path, {
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).answer;
}
