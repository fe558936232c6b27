import { expect, it } from 'vitest';
import { HARNESS_MAX_IMPORT_BODY_BYTES, type Harness } from '../support/harness.js';

const JOBS = '/admin/v1/import/jobs' as const;
const JOB = '/admin/v1/import/jobs/{id}' as const;
const CANCEL = '/admin/v1/import/jobs/{id}/_cancel' as const;
const SEARCH = '/admin/v1/import/jobs/_search' as const;

const doc = { orgs: [{ orgId: 'ct-job-org', org: { name: 'Contract job' } }] };

/** No worker runs in the harness: a started job stays queued, which is all the contract needs. */
export function importJobScenarios(h: () => Harness) {
  it('import jobs: start, get, list, cancel (queued → cancelled), cancel again → 400, unknown → 404', async () => {
    const { admin } = h();
    const started = await admin.POST(JOBS, { body: { timeout: '1m', dataOrgs: doc } });
    expect(started.response.status).toBe(200);
    const id = started.data!.id;
    const got = await admin.GET(JOB, { params: { path: { id } } });
    expect(got.data?.job).toMatchObject({ id, phase: 'queued', progress: { orgsDone: 0, usersDone: 0 }, committedOrgIds: [] });
    const listed = await admin.POST(SEARCH, { body: { query: { asc: false, limit: 1 } } });
    expect(listed.data?.result.map((j) => j.id)).toEqual([id]);
    expect((await admin.POST(CANCEL, { params: { path: { id } } })).response.status).toBe(200);
    expect((await admin.GET(JOB, { params: { path: { id } } })).data?.job.phase).toBe('cancelled');
    expect((await admin.POST(CANCEL, { params: { path: { id } } })).response.status).toBe(400);
    expect((await admin.GET(JOB, { params: { path: { id: '404' } } })).response.status).toBe(404);
    // A path parameter with a NUL character: 400, as for every operation.
    expect((await admin.GET(JOB, { params: { path: { id: 'job\u0000' } } })).response.status).toBe(400);
    expect((await admin.POST(CANCEL, { params: { path: { id: '404' } } })).response.status).toBe(404);
  });

  it('import jobs: 400, 401, 403, 413', async () => {
    const { admin, anonymous } = h();
    const token = h().instance.adminToken;
    const notJson = await h().fetch(JOBS, { method: 'POST', token, headers: { 'content-type': 'text/plain' }, body: 'orgs' });
    expect(notJson.status).toBe(400);
    expect((await admin.POST(SEARCH, { body: { query: { limit: -1 } } })).response.status).toBe(400);

    expect((await anonymous.POST(JOBS, { body: { dataOrgs: doc } })).response.status).toBe(401);
    expect((await anonymous.POST(SEARCH, { body: {} })).response.status).toBe(401);
    expect((await anonymous.GET(JOB, { params: { path: { id: '1' } } })).response.status).toBe(401);
    expect((await anonymous.POST(CANCEL, { params: { path: { id: '1' } } })).response.status).toBe(401);

    const { client: viewer } = await h().userWithRoles({ instance: ['IAM_OWNER_VIEWER'] });
    expect((await viewer.POST(JOBS, { body: { dataOrgs: doc } })).response.status).toBe(403);
    expect((await viewer.POST(SEARCH, { body: {} })).response.status).toBe(403);
    expect((await viewer.GET(JOB, { params: { path: { id: '1' } } })).response.status).toBe(403);
    expect((await viewer.POST(CANCEL, { params: { path: { id: '1' } } })).response.status).toBe(403);

    // Beyond the import's limit (the harness's: HARNESS_MAX_IMPORT_BODY_BYTES), counted as the body is written to the job's file.
    const big = await h().fetch(JOBS, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: `{"dataOrgs":{"orgs":[]},"pad":"${'x'.repeat(HARNESS_MAX_IMPORT_BODY_BYTES + 16)}"}`,
    });
    expect(big.status).toBe(413);
  });
}
