/**
 * The thread that reads an import's document (started by document-reader.ts): pass 1 (read,
 * validate, split to the spool) and pass 2's reading (an organisation's parts, its users a batch at
 * a time, each line parsed and validated again). Everything here allocates per user and is garbage
 * a moment later; in a thread of its own, with a small heap (resourceLimits), V8 must collect it
 * early instead of letting it pile up in the server's heap, and none of it runs on the event loop
 * that answers requests. What is written to the database is not done here: the server's thread
 * does that with the values sent back.
 */
import { parentPort } from 'node:worker_threads';
import { lowerThisThreadsPriority } from '../../runtime/worker-threads.js';
import { DomainError } from '../errors.js';
import type { ReaderAnswer, ReaderRequest, SerializedError } from './document-reader.js';
import { toLowerCamel } from './json-names.js';
import { spoolIn } from './spool.js';
import { readSpooledParts, readSpooledUsers, SPOOLED_DOCUMENT, spoolDocument, type UserBatch } from './spooled-document.js';
import { v1TooLarge } from './v1.js';

lowerThisThreadsPriority(10);

const port = parentPort!;
/** The user batches being read, by stream id: each `next` request takes one. */
const streams = new Map<number, AsyncGenerator<UserBatch>>();

port.on('message', (req: ReaderRequest) => {
  void answer(req).then(
    (result) => send({ id: req.id, result }, transferable(result)),
    (error: unknown) => send({ id: req.id, error: serializeError(error) }),
  );
});

/** The plan's directory (8 bytes per user) is moved to the server's thread, not copied. */
function transferable(result: unknown): ArrayBuffer[] {
  const directory = (result as { plan?: { directory?: Float64Array } } | null)?.plan?.directory;
  return directory?.byteLength ? [directory.buffer as ArrayBuffer] : [];
}

/** Every request gets an answer: one that cannot be sent (not cloneable) is answered with why, never left waiting. */
function send(message: ReaderAnswer, transfer: ArrayBuffer[] = []): void {
  try {
    port.postMessage(message, transfer);
  } catch (error) {
    port.postMessage({ id: message.id, error: serializeError(error) } satisfies ReaderAnswer);
  }
}

async function answer(req: ReaderRequest): Promise<unknown> {
  switch (req.op) {
    case 'spool': {
      const { file, shape, spoolDir, spoolKey, refuseV1 } = req;
      const spool = spoolIn(spoolDir, spoolKey);
      const read = await spoolDocument({
        file,
        shape,
        spool,
        beforeEnvelopeValue: (key) => {
          if (refuseV1 && toLowerCamel(key) === 'dataOrgsv1') throw v1TooLarge();
        },
      });
      const documentKey = Object.keys(read.envelope).find((key) => read.envelope[key] === SPOOLED_DOCUMENT);
      if (documentKey) delete read.envelope[documentKey];
      const problems = read.problems.count > 0 ? { count: read.problems.count, error: serializeError(read.problems.toError()) } : { count: 0 };
      return { envelope: read.envelope, documentKey, found: read.found, problems, orgs: read.orgs, plan: read.plan };
    }
    case 'parts':
      return readSpooledParts(req.restFile);
    case 'users': {
      let stream = streams.get(req.stream);
      if (!stream) streams.set(req.stream, (stream = readSpooledUsers(req.usersFile, req.size)));
      const next = await stream.next();
      if (next.done) streams.delete(req.stream);
      return next.done ? null : next.value;
    }
    case 'endUsers':
      await streams.get(req.stream)?.return(undefined);
      streams.delete(req.stream);
      return null;
  }
}

function serializeError(error: unknown): SerializedError {
  if (error instanceof DomainError) return { domain: { code: error.code, id: error.id }, message: error.message };
  return { message: error instanceof Error ? error.message : String(error) };
}
