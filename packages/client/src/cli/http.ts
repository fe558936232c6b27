/**
 * The CLI's HTTP: one fetch that names why a connection failed, and one reading of a refused
 * answer, for every command (export, import, migrate, verify, sync).
 */
import { ReadableStream as WebReadableStream } from 'node:stream/web';

/** Why a connection failed, from Node's error code (fetch reports only "fetch failed", the code is in `cause`). */
function connectionReason(error: unknown): string {
  let cause: unknown = error;
  // undici nests: TypeError('fetch failed') → cause (a system or TLS error), sometimes one level deeper.
  for (let i = 0; i < 3 && cause instanceof Error && !(cause as { code?: unknown }).code && cause.cause; i++) cause = cause.cause;
  const code = String((cause as { code?: unknown })?.code ?? '');
  const message = cause instanceof Error ? cause.message : String(cause);
  if (code === 'ECONNREFUSED') return 'connection refused (is the service running on that port?)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME' || code === 'EAI_FAIL') return `host name not found (DNS: ${code})`;
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return 'connection timed out';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return `connection closed by the other side (${code})`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `host unreachable (${code})`;
  if (/^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$|HOSTNAME_MISMATCH)/.test(code)) return `TLS failed (${code}: ${message})`;
  return code ? `${code}: ${message}` : message;
}

/** fetch, with a failure to connect reported as "cannot reach <origin>: <reason>". */
export async function request(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    if (error instanceof TypeError && error.message === 'fetch failed') {
      throw new Error(`cannot reach ${new URL(url).origin}: ${connectionReason(error)}`);
    }
    throw error;
  }
}

/** What a refused answer says: its error body's message, else the start of its text. */
export function answerMessage(text: string): string {
  try {
    return (JSON.parse(text) as { message?: string }).message ?? text;
  } catch {
    return text.slice(0, 500);
  }
}

/** A refused answer as an error: `<status>: <message>`. */
export async function failure(res: Response): Promise<Error> {
  return new Error(`${res.status}: ${answerMessage(await res.text())}`);
}

export const base = (url: string) => url.replace(/\/+$/, '');

/**
 * The fields of a request whose body is streamed (an import's document): read a chunk at a time as
 * fetch sends it, and never redirected. With fetch's default (`redirect: 'follow'`) undici clones
 * the request to be able to follow a redirect, which tees its body: the branch not sent keeps every
 * chunk until the request is gone. An upload of a million users' document (346 MiB) grew the CLI
 * by ~380 MiB that way (BENCHMARKS.md, "Imports at a million users"). A streamed body cannot be
 * sent twice anyway: a redirect is an error.
 */
export const streamedRequest = (chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) =>
  ({ body: WebReadableStream.from(chunks) as unknown as ReadableStream<Uint8Array>, duplex: 'half', redirect: 'error' }) as RequestInit;

/** A response's body as chunks (none for a body-less answer). */
export const bodyOf = (res: Response): AsyncIterable<Uint8Array> => (res.body ?? []) as unknown as AsyncIterable<Uint8Array>;
