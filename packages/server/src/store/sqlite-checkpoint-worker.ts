/**
 * The thread that checkpoints the SQLite write-ahead log after a long transaction
 * (sqlite-checkpointer.ts): its own connection to the database file, one PASSIVE checkpoint per
 * message, SQLite's answer sent back. PASSIVE never waits for the writer or a reader; what it
 * cannot copy yet is left for the next checkpoint.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThisThreadsPriority } from '../runtime/worker-threads.js';
import type { CheckpointAnswer } from './sqlite-checkpointer.js';
import { openSqlite } from './sqlite-native.js';

// Copying the log is disk work that can wait: the thread answering requests goes first.
lowerThisThreadsPriority(10);

const conn = openSqlite((workerData as { path: string }).path);
conn.pragma('busy_timeout = 5000');
const checkpoint = conn.prepare('PRAGMA wal_checkpoint(PASSIVE)');

parentPort!.on('message', () => {
  let answer: CheckpointAnswer;
  try {
    answer = checkpoint.get() as CheckpointAnswer;
  } catch (error) {
    answer = { error: String((error as Error)?.message ?? error) };
  }
  parentPort!.postMessage(answer);
});
