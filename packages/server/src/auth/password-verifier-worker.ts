/**
 * A password-verification worker thread (started by password-verifier.ts): takes one
 * `{ id, plain, encoded }` at a time and answers `{ id, ok, rehash }`. The work is synchronous
 * here on purpose: it blocks this thread, not the server's event loop, and does not take a slot
 * of libuv's thread pool (shared with file and DNS work) for seconds.
 */
import { parentPort } from 'node:worker_threads';
import { lowerThisThreadsPriority } from '../runtime/worker-threads.js';
import { verifyPasswordInThisThread } from './password-hashes.js';

/**
 * A check at the cost bounds keeps this thread busy for seconds, back to back while an account is
 * hammered; the event loop that answers everyone else must not lose its core to it. On Linux a
 * thread's id is a valid target of setpriority, so this thread (only) lowers its own priority; the
 * hashing libraries compute on the calling thread, so all their work runs at that priority.
 * Elsewhere (no /proc/thread-self) checks run at the process's priority.
 */
lowerThisThreadsPriority(10);

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
