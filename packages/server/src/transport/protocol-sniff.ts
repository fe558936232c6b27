/**
 * Which protocol a new plaintext connection speaks, from its first bytes: HTTP/2 with prior
 * knowledge (h2c) opens with the connection preface, anything else is taken as HTTP/1.1. Without
 * TLS there is no ALPN to say it, and node's HTTP/2 server takes HTTP/1.1 (`allowHTTP1`) only
 * over TLS, so the listener looks itself (see ARCHITECTURE.md, "One port, two HTTP versions").
 *
 * A connection is decided on its first byte that differs from the preface (an HTTP/1.1 request
 * differs at its first or second byte: `GET`, `POST` → `PO` ≠ `PR`), or once the whole preface
 * (24 bytes) has arrived, however it was split. What was read is put back (`unshift`), so the
 * server it goes to reads the connection from its start.
 */
import type { Socket } from 'node:net';

/** RFC 9113 §3.4: what a client speaking HTTP/2 sends first. */
export const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

export type SniffOutcome =
  | 'http/1.1'
  | 'h2'
  /** Nothing, or only a beginning of the preface, arrived within the time given. */
  | 'timeout'
  /** The connection closed or failed first. */
  | 'gone';

/**
 * Reads from `socket` until its protocol is known, or `timeoutMs` passed; then calls `decided`
 * once, with whatever was read put back into the socket. A socket handed on is left paused, for
 * the server it goes to.
 */
export function sniffProtocol(socket: Socket, timeoutMs: number, decided: (outcome: SniffOutcome) => void): void {
  let head: Buffer | undefined;
  const finish = (outcome: SniffOutcome) => {
    clearTimeout(timer);
    socket.removeListener('readable', onReadable);
    socket.removeListener('end', onGone);
    socket.removeListener('close', onGone);
    socket.removeListener('error', onGone);
    if (head && outcome !== 'gone') socket.unshift(head);
    decided(outcome);
  };
  const onReadable = () => {
    let chunk: Buffer | null;
    while ((chunk = socket.read() as Buffer | null) !== null) head = head ? Buffer.concat([head, chunk]) : chunk;
    if (!head) return;
    const compared = Math.min(head.length, HTTP2_PREFACE.length);
    if (head.compare(HTTP2_PREFACE, 0, compared, 0, compared) !== 0) finish('http/1.1');
    else if (head.length >= HTTP2_PREFACE.length) finish('h2');
    // else: a beginning of the preface; wait for the rest.
  };
  const onGone = () => finish('gone');
  const timer = setTimeout(() => finish('timeout'), timeoutMs);
  socket.on('readable', onReadable);
  socket.once('end', onGone);
  socket.once('close', onGone);
  socket.once('error', onGone);
}
