/**
 * The lists of an import's answer (answer-lists.ts): kept in memory while small, sealed records in
 * the spool once the import's lists hold more than their budget, read back in order; the answer
 * written as a stream of JSON text equal to JSON.stringify's.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnswerSpill, jsonText, RawJson } from '../../src/domain/transfer/answer-lists.js';
import { createSpool, type Spool } from '../../src/domain/transfer/spool.js';

const text = async (value: unknown) => {
  let out = '';
  for await (const piece of jsonText(value)) out += piece;
  return out;
};

describe('answer lists', () => {
  let spool: Spool;
  beforeEach(async () => {
    spool = await createSpool();
  });
  afterEach(() => spool.remove());

  it('keep their entries in order across records of several lists, sealed on disk, and append whole lists', async () => {
    const spill = new AnswerSpill(spool.sealed('answer.records'), 4096);
    spool.onRemove(() => spill.close());
    const humans = spill.list<string>();
    const errors = spill.list<{ type: string; id: string; message: string }>();
    const ids = Array.from({ length: 3000 }, (_, i) => `219387465738${String(i).padStart(6, '0')}`);
    for (const [i, id] of ids.entries()) {
      humans.push(id);
      if (i % 3 === 0) errors.push({ type: 'human_user', id, message: `ID=COMMAND-ziuna Message=user ${i} exists` });
    }
    const later = spill.list<string>();
    later.push('last-1');
    later.push('last-2');
    humans.append(later);
    expect(humans.length).toBe(3002);
    expect(await humans.toArray()).toEqual([...ids, 'last-1', 'last-2']);
    expect((await errors.toArray()).map((e) => e.id)).toEqual(ids.filter((_, i) => i % 3 === 0));
    // Written out (more than 4 KiB of text), and nothing of it readable there.
    const onDisk = readFileSync(spool.sealed('answer.records').path);
    expect(onDisk.length).toBeGreaterThan(50_000);
    for (const clear of [ids[0], ids[2999], 'COMMAND-ziuna']) expect(onDisk.includes(clear), clear).toBe(false);
  });

  it('write an answer as JSON.stringify would, with the lists and spliced JSON text in place', async () => {
    const spill = new AnswerSpill(spool.sealed('answer.records'), 64);
    spool.onRemove(() => spill.close());
    const humanUserIds = spill.list(['a', 'b\n"quoted"', 'ü']);
    const empty = spill.list<string>();
    const answer = {
      errors: spill.list([{ type: 't', id: 'i', message: 'm' }]),
      success: { orgs: [{ orgId: '1', humanUserIds, machineUserIds: empty, skipped: undefined }] },
      summary: { created: 3, unchanged: 0, changed: 0, refused: 1 },
      when: new Date(0),
      dryRun: true,
    };
    const plain = {
      errors: [{ type: 't', id: 'i', message: 'm' }],
      success: { orgs: [{ orgId: '1', humanUserIds: ['a', 'b\n"quoted"', 'ü'], machineUserIds: [] }] },
      summary: answer.summary,
      when: new Date(0),
      dryRun: true,
    };
    expect(await text(answer)).toBe(JSON.stringify(plain));
    const raw = new RawJson(async function* () {
      yield '{"success":';
      yield '{}}';
    });
    expect(JSON.parse(await text({ job: { id: 'j', result: raw } }))).toEqual({ job: { id: 'j', result: { success: {} } } });
  });
});
