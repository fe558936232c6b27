/**
 * A sync round's documents read as streams (src/cli/sync-document.ts): an incremental export's
 * answer, arriving in chunks cut anywhere, becomes its top-level fields and each organisation's
 * entries one at a time; the sealed spool gives them back as an import request's body with what
 * the policy keeps of the target's left out, and holds no value in clear on the disk.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { Conflicts, Touched, unitOfEntry } from '../src/cli/sync-conflicts.js';
import { type Entry, entriesOf, SealedSpool } from '../src/cli/sync-document.js';

const ORG = '318446427791228931';
const OTHER = '318446427791228932';
const ANN = '318446427791228940';
const BOB = '318446427791228941';

const answer = {
  checkpoint: '4711',
  removed: [{ orgId: ORG, resources: [{ kind: 'project_role', projectId: '318446427791228950', roleKey: 'buyer' }] }],
  orgs: [
    {
      orgId: ORG,
      org: { name: 'Shöp Cö' },
      orgState: 'ORG_STATE_ACTIVE',
      humanUsers: [
        { userId: ANN, user: { userName: 'ann', hashedPassword: { value: '$argon2id$secret-ann' } } },
        { userId: BOB, user: { userName: 'bob', hashedPassword: { value: '$argon2id$secret-bob' } } },
      ],
      lockoutPolicy: { maxPasswordAttempts: 3 },
      userMetadata: [{ id: BOB, key: 'team', value: 'Ymx1ZQ==' }],
      projects: [{ projectId: '318446427791228950', project: { name: 'shop' } }],
    },
    { orgId: OTHER, projects: [{ projectId: '318446427791228951', project: { name: 'other' } }], userGrants: [{ userId: ANN, identityServiceGrantId: '318446427791228960', roleKeys: [] }] },
  ],
};

/** The text in chunks of `size` bytes, as a response body may arrive (a chunk may end mid-character). */
async function* chunks(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function text(body: AsyncIterable<Buffer>): Promise<string> {
  let out = '';
  for await (const b of body) out += b.toString();
  return out;
}

it('reads an answer cut anywhere into entries and gives it back whole as the import body, sealed on disk', async () => {
  for (const size of [1, 7, 4096]) {
    const roots: Entry[] = [];
    const spool = new SealedSpool();
    try {
      await spool.write(entriesOf(chunks(JSON.stringify(answer), size)), (e) => e.at === 'root' && roots.push(e));
      expect(roots).toEqual([
        { at: 'root', key: 'checkpoint', value: '4711' },
        { at: 'root', key: 'removed', value: answer.removed },
      ]);
      expect(spool.orgs).toBe(2);
      const sealed = readFileSync(spool.file);
      expect(sealed.includes('secret-ann')).toBe(false);
      expect(sealed.includes(ORG)).toBe(false);
      const body = await text(spool.body('{"timeout":"1m","dataOrgs":', () => true));
      expect(JSON.parse(body)).toEqual({ timeout: '1m', dataOrgs: { orgs: answer.orgs } });
    } finally {
      spool.remove();
    }
  }
});

it('leaves out what the target changed too and the policy keeps there: a user with its lists, the organisation\u2019s resources', async () => {
  const local = new Touched();
  for await (const e of entriesOf(
    chunks(
      JSON.stringify({
        checkpoint: '9',
        removed: [],
        orgs: [
          { orgId: ORG, humanUsers: [{ userId: BOB }] },
          { orgId: OTHER, projects: [{ projectId: '1' }] },
        ],
      }),
      64,
    ),
  ))
    local.entry(e);
  const conflicts = new Conflicts(local);
  const spool = new SealedSpool();
  try {
    await spool.write(entriesOf(chunks(JSON.stringify(answer), 13)), (e) => e.at !== 'root' && conflicts.meet(unitOfEntry(e)));
    expect(conflicts.list).toEqual([
      { type: 'user', id: BOB },
      { type: 'org_resources', id: OTHER },
    ]);
    const body = JSON.parse(await text(spool.body('{"dataOrgs":', (e) => !conflicts.has(unitOfEntry(e)))));
    const [org, other] = answer.orgs;
    expect(body.dataOrgs.orgs).toEqual([
      { orgId: ORG, org: org.org, orgState: org.orgState, humanUsers: [org.humanUsers![0]], lockoutPolicy: org.lockoutPolicy, projects: org.projects },
      { orgId: OTHER, userGrants: other.userGrants },
    ]);
  } finally {
    spool.remove();
  }
});
