/**
 * A password-verification worker thread (started by password-verifier.ts): takes one
 * `{ id, plain, encoded }` at a time and answers `{ id, ok, rehash }`. The work is synchronous
 * here on purpose: it blocks this thread, not the server's event loop, and does not take a slot
 * of libuv's thread pool (shared with file and DNS work) for seconds.
 */
import { parentPort } from 'node:worker_threads';
import { verifyPasswordInThisThread } from './password-hashes.js';

export interface VerifyRequest {
  id: number;
  plain: string;
  encoded: string;
}
export interface VerifyAnswer {
  id: number;
  ok: boolean;
  rehash?: boolean;
}

parentPort?.on('message', (req: VerifyRequest) => {
  const check = verifyPasswordInThisThread(req.plain, req.encoded);
  parentPort!.postMessage({ id: req.id, ...check } satisfies VerifyAnswer);
});
