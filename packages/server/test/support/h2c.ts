/**
 * An HTTP/2 client with prior knowledge over plaintext (h2c), as gRPC clients open against an
 * http:// URL: node's own http2 client, one session per call of `h2cSession`.
 */
import { type ClientHttp2Session, type ClientHttp2Stream, connect as connectHttp2, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
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

/** Frame types of RFC 9113 §6 that the raw-frame tests and the bench write or read. */
export const FRAME = { HEADERS: 1, RST_STREAM: 3, SETTINGS: 4, GOAWAY: 7 } as const;

/** An HTTP/2 frame: its 9-byte header and payload. */
export function h2Frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId, 5);
  return Buffer.concat([head, payload]);
}

/** A GET of `path` as an HPACK header block without Huffman: :method GET and :scheme http indexed, :path and :authority literal (each under 128 bytes). */
export function getHeaderBlock(path: string, authority: string): Buffer {
  const literal = (nameIndex: number, value: string) => Buffer.concat([Buffer.from([nameIndex, value.length]), Buffer.from(value, 'latin1')]);
  return Buffer.concat([Buffer.from([0x82, 0x86]), literal(0x04, path), literal(0x01, authority)]);
}

/** The error codes of the GOAWAY frames in what a raw connection received. */
export function goawayCodes(received: Buffer): number[] {
  const codes: number[] = [];
  for (let at = 0; at + 9 <= received.length; at += 9 + received.readUIntBE(at, 3)) {
    if (received[at + 3] === FRAME.GOAWAY && at + 17 <= received.length) codes.push(received.readUInt32BE(at + 13));
  }
  return codes;
}
