/**
 * The import's document reader (domain/transfer/document-reader.ts) hands its user batches over
 * from a worker thread. Each answer reaches the server's thread inside the worker port's message
 * handler, which goes on delivering every message that has arrived before it returns to the event
 * loop; the next batch is read while one is written, so it is usually there already. Without a
 * turn of the loop per batch, an import of 190,000 users held the loop for 100–300 ms at a time
 * (10–30 batches) and every request sent meanwhile waited that long (BENCHMARKS.md, issue 30).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { acquireReader, DocumentReader, releaseReader } from '../../src/domain/transfer/document-reader.js';
import { MAX_VALUE_DEPTH } from '../../src/domain/transfer/document-stream.js';
import { createSpool, type Spool, spoolTo } from '../../src/domain/transfer/spool.js';
import { BCRYPT } from '../support/transfer-documents.js';

const USERS = 200;
const BATCH = 10;
/** Per batch, as the import's writes take the thread (long enough for the worker to read the next one). */
const WRITE_MS = 25;

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // the server's thread writing a batch: no turn of the event loop
  }
}

/** `text` as a sealed file of `spool`, as the import's route writes a body. */
const sealedIn = async (spool: Spool, name: string, text: string) => (await spoolTo(spool, name, [Buffer.from(text)], Number.POSITIVE_INFINITY, () => new Error('too large'))).file;

describe("the import's document reader", () => {
  let spool: Spool;
  let reader: DocumentReader;
  beforeEach(async () => {
    spool = await createSpool();
    reader = new DocumentReader();
  });
  afterEach(async () => {
    await reader.close();
    await spool.remove();
  });

  it('gives the event loop a turn before every batch of users, though the next batch is already there', async () => {
    const humanUsers = Array.from({ length: USERS }, (_, i) => ({
      userId: `u${i}`,
      user: { userName: `user${i}`, profile: { firstName: 'A', lastName: 'B' }, email: { email: `user${i}@example.com`, isEmailVerified: true }, hashedPassword: { value: BCRYPT } },
    }));
    const file = await sealedIn(spool, 'document.json', JSON.stringify({ orgs: [{ orgId: 'o1', org: { name: 'Reader' }, humanUsers }] }));
    const document = await reader.spool({ file, shape: 'document', spool });
    expect(document.problems.count).toBe(0);

    // Counts the event loop's turns: one per pass through its check phase.
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);

    const turnsBefore: number[] = [];
    let users = 0;
    try {
      let last = turns;
      for await (const batch of document.orgs[0].userBatches(BATCH)) {
        turnsBefore.push(turns - last);
        users += batch.humanUsers?.length ?? 0;
        busy(WRITE_MS);
        last = turns;
      }
    } finally {
      ticking = false;
    }
    expect(users).toBe(USERS);
    expect(turnsBefore).toHaveLength(USERS / BATCH);
    // Every batch after the first waited for at least one turn of the loop.
    expect(turnsBefore.slice(1).filter((n) => n === 0)).toEqual([]);
  });

  // A hostile body of 5,000 nested objects: the reader thread ran out of stack handing it back and
  // the import never answered (the fuzz test's import calls hung until CI's time ran out).
  it('refuses a value nested deeper than the limit as bad input (400), in the request and in the document, and answers at once', async () => {
    const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
    const cases: [string, 'request' | 'document'][] = [
      [nested(5000), 'request'],
      [`{"orgs":[{"orgId":"o1","org":${nested(5000)}}]}`, 'document'],
      [`{"orgs":[{"orgId":"o1","humanUsers":[${nested(MAX_VALUE_DEPTH + 1)}]}]}`, 'document'],
    ];
    // Each document in a spool of its own, as each import has.
    const read = async (text: string, shape: 'request' | 'document') => {
      const own = await createSpool();
      try {
        const file = await sealedIn(own, 'document.json', text);
        return await reader.spool({ file, shape, spool: own });
      } finally {
        await own.remove();
      }
    };
    for (const [text, shape] of cases) {
      const started = performance.now();
      const error = await read(text, shape).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ code: 3, id: 'IMPORT-d3pth' });
      expect(performance.now() - started).toBeLessThan(5000);
    }
    // Exactly at the limit is taken (and then validated as a user like any other).
    const atLimit = await read(`{"orgs":[{"orgId":"o1","humanUsers":[${nested(MAX_VALUE_DEPTH - 1)}]}]}`, 'document');
    expect(atLimit.orgs).toHaveLength(1);
  });

  it('a reader whose import ended cleanly serves the next import; one left with a stream open, or stopped, is not handed out again', async () => {
    const file = await sealedIn(
      spool,
      'small.json',
      JSON.stringify({
        orgs: [{ orgId: 'o1', org: { name: 'Small' }, humanUsers: [{ userId: 'u1', user: { userName: 'u1', profile: { firstName: 'A', lastName: 'B' }, email: { email: 'u1@example.com' } } }] }],
      }),
    );
    const readAll = async (reader: DocumentReader, own: Spool) => {
      const read = await reader.spool({ file, shape: 'document', spool: own });
      let users = 0;
      for await (const batch of read.orgs[0].userBatches(BATCH)) users += batch.humanUsers?.length ?? 0;
      return users;
    };
    const spools: Spool[] = [];
    const fresh = async () => {
      const own = await createSpool();
      spools.push(own);
      return own;
    };
    try {
      const first = acquireReader();
      expect(await readAll(first, await fresh())).toBe(1);
      await releaseReader(first);
      const second = acquireReader();
      expect(second).toBe(first);
      expect(await readAll(second, await fresh())).toBe(1);

      // Left with a stream open (its import stopped between batches without ending it): not kept.
      const read = await second.spool({ file, shape: 'document', spool: await fresh() });
      await read.orgs[0].userBatches(BATCH)[Symbol.asyncIterator]().next();
      expect(second.reusable).toBe(false);
      await releaseReader(second);
      const third = acquireReader();
      expect(third).not.toBe(second);
      expect(await readAll(third, await fresh())).toBe(1);

      // Stopped while idle: the next import gets a new one.
      await releaseReader(third);
      await third.close();
      const fourth = acquireReader();
      expect(fourth).not.toBe(third);
      expect(await readAll(fourth, await fresh())).toBe(1);
      await fourth.close();
    } finally {
      for (const own of spools) await own.remove();
    }
  });
});
