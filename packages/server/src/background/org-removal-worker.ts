/**
 * Finishes the removal of organisations (domain/orgs/removal.ts, step 2): their users and the
 * user grants of and on them, one short transaction after another, with a turn of the event loop
 * between two, so requests are answered meanwhile. RemoveOrg pokes it; it also looks for
 * unfinished removals when it starts (a process stopped in the middle of one) and every `pollMs`
 * (one another process, since stopped, had begun). Several processes may work on one removal at
 * once: each transaction takes the organisation's lock and removes what is left.
 */
import { setImmediate as turn } from 'node:timers/promises';
import { type BatchBudget, continueOrgRemoval } from '../domain/orgs/removal.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { WakeablePause } from './wakeable-pause.js';

export interface OrgRemovalWorkerOptions {
  store: Store;
  logger?: Logger;
  /** How often unfinished removals are looked for without a poke. */
  pollMs?: number;
  /** How long one transaction may run, and its steps' size (domain/orgs/removal.ts BATCH_BUDGET by default). */
  budget?: BatchBudget;
}

export class OrgRemovalWorker {
  private running = false;
  private loop?: Promise<void>;
  private readonly pause = new WakeablePause();
  private poked = false;

  constructor(private readonly o: OrgRemovalWorkerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        this.poked = false;
        try {
          await this.runPending();
        } catch (error) {
          this.o.logger?.error('organisation removal failed; it goes on at the next look', { error: (error as Error).message });
        }
        if (this.running && !this.poked) {
          await this.pause.sleep(this.o.pollMs ?? 30_000, { unref: true });
        }
      }
    })();
  }

  /** An organisation's removal was just started in this process. */
  poke(): void {
    this.poked = true;
    this.pause.wake();
  }

  /** Stops after the transaction in progress; what is left is taken up at the next start. */
  async stop(): Promise<void> {
    this.running = false;
    this.pause.wake();
    await this.loop;
  }

  /** Runs every unfinished removal to its end (or until stopped); the worker's round, and what tests call. */
  async runPending(): Promise<void> {
    for (const { orgId, createdAt } of await this.o.store.read.removal.pendingOrgRemovals()) {
      const started = performance.now();
      let batches = 0;
      let state: 'more' | 'done' = 'more';
      while (state === 'more') {
        // A stopped worker leaves the rest to the next start (not in tests, which run it unstarted).
        if (this.loop && !this.running) return;
        state = await continueOrgRemoval(this.o.store, orgId, this.o.budget);
        batches++;
        // Whatever arrived meanwhile is answered before the next transaction.
        await turn();
      }
      this.o.logger?.info('organisation removal finished', { orgId, batches, seconds: (performance.now() - started) / 1000, sinceRemoved: (Date.now() - createdAt.getTime()) / 1000 });
    }
  }
}
