/**
 * An import's answer as the CLI reads it (src/cli/import-answer.ts): as a stream, its lists
 * counted. The answer of an import job of a million users lists a million ids; read whole
 * (`res.json()`), ids of 64 characters grew the CLI by ~340 MiB at the end of an import it had
 * streamed in a few MiB (BENCHMARKS.md, "Imports at a million users").
 */
import { getHeapStatistics } from 'node:v8';
import { expect, it } from 'vitest';
import { completeAnswer, type ImportAnswer, LISTED, readImportAnswer } from '../src/cli/import-answer.js';

const MiB = 1024 * 1024;
const ORG = '318446427791228931';
const hex64 = (n: number) => `${n.toString(16).padStart(16, '0')}9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822c`;

/** An import job's view once done, as GetImportJob writes it, in chunks of ~64 KiB; `onChunk` runs before each. */
async function* jobView(users: number, errors: number, onChunk: () => void): AsyncGenerator<Uint8Array> {
  let text = `{"job":{"id":"318446427791229000","phase":"done","progress":{"orgsDone":1,"orgsTotal":1,"usersDone":${users},"usersTotal":${users}},"committedOrgIds":["${ORG}"],"result":{"success":{"orgs":[{"orgId":"${ORG}","humanUserIds":[`;
  const flush = function* () {
    if (text.length < 64 * 1024) return;
    onChunk();
    yield Buffer.from(text);
    text = '';
  };
  for (let n = 0; n < users; n++) {
    text += `${n ? ',' : ''}"${hex64(n)}"`;
    yield* flush();
  }
  text += ']}]},"errors":[';
  for (let n = 0; n < errors; n++) {
    text += `${n ? ',' : ''}{"type":"human_user","id":"${hex64(users + n)}","message":"ID=COMMAND-ziuna Message=Errors.User.AlreadyExisting"}`;
    yield* flush();
  }
  text += `],"warnings":[{"type":"user","id":"100","message":"2 references to user 100 skipped"}],"summary":{"created":${users},"unchanged":0,"changed":0,"skipped":0,"refused":${errors}},`;
  text += `"summaryByType":{"human_user":{"created":${users},"unchanged":0,"changed":0,"skipped":0,"refused":${errors}}}}}}`;
  onChunk();
  yield Buffer.from(text);
}

it('counts the lists of a small answer and keeps everything else', async () => {
  const body = {
    success: { orgs: [{ orgId: ORG, humanUserIds: ['1', '2'], userGrants: [{ projectId: '3', userId: '1' }] }, { orgId: '4' }] },
    errors: [{ type: 'project', id: '5', message: 'ID=COMMAND-x Message=Errors.Project.AlreadyExists' }],
    summary: { created: 3, unchanged: 0, changed: 0, skipped: 0, refused: 1 },
    dryRun: true,
    resources: [{ type: 'org', id: ORG, outcome: 'CREATED' }],
  };
  const text = JSON.stringify(body);
  // Chunks cut anywhere, a character's bytes split between two.
  const answer = completeAnswer(
    (await readImportAnswer(
      (async function* () {
        const bytes = Buffer.from(text);
        for (let i = 0; i < bytes.length; i += 7) yield bytes.subarray(i, i + 7);
      })(),
    )) as ImportAnswer,
  );
  expect(answer).toEqual({
    success: { orgs: [{ orgId: ORG, humanUserIds: 2, userGrants: 1 }, { orgId: '4' }] },
    errors: { first: body.errors, total: 1, byType: { project: 1 } },
    warnings: { first: [], total: 0, byType: {} },
    summary: body.summary,
    dryRun: true,
    resources: 1,
  });
});

it("reads a job's answer of a million 64-character ids without holding them", async () => {
  const users = 1_000_000;
  const errors = 30_000;
  let peak = 0;
  const start = getHeapStatistics().used_heap_size;
  const sample = () => void (peak = Math.max(peak, getHeapStatistics().used_heap_size));
  const view = (await readImportAnswer(jobView(users, errors, sample), ['job', 'result'])) as { job: { phase: string; result: ImportAnswer } };
  sample();

  const answer = completeAnswer(view.job.result);
  expect(view.job.phase).toBe('done');
  expect(answer.success.orgs).toEqual([{ orgId: ORG, humanUserIds: users }]);
  expect(answer.errors.total).toBe(errors);
  expect(answer.errors.byType).toEqual({ human_user: errors });
  expect(answer.errors.first).toHaveLength(LISTED);
  expect(answer.warnings.first).toEqual([{ type: 'user', id: '100', message: '2 references to user 100 skipped' }]);
  expect(answer.summaryByType?.human_user?.created).toBe(users);
  // The body is ~70 MiB; read whole, the heap grew by 150–200 MiB (its text, then a string per id).
  // Read as a stream, what is alive at once is a chunk, its tokens and the counts: young garbage.
  expect((peak - start) / MiB).toBeLessThan(48);
}, 120_000);
