/**
 * Target `grants` (issue 34): 4.2, `DELETE /management/v1/users/{userId}/grants/{grantId}` with
 * `x-service-orgid`, on every store in turns, over enough user grants for the run (imported 30,000
 * per organisation). Target: on PostgreSQL ≤ 1.5× its server CPU per request on SQLite. With
 * BENCH_BASELINE_DIR, another checkout's packages/server measured in the same turns (before/after).
 */
import type { Child } from '../support/children.js';
import type { Row } from '../support/report.js';
import { type Service, startService } from '../support/run-servers.js';
import { settings, stores } from '../support/run-settings.js';
import { apiCall } from '../support/service-api.js';
import { inTurns, type Side } from '../support/turns.js';

const GRANTS_TARGET = '4.2 DELETE a user grant (x-service-orgid)';
/** BENCH_BASELINE_DIR: another checkout's packages/server, whose 4.2 is measured in the same turns (before/after a change). */
const BASELINE_DIR = process.env.BENCH_BASELINE_DIR || undefined;
const BASELINE_LABEL = ', baseline (BENCH_BASELINE_DIR)';
const PER_ORG = 30_000;
/**
 * The most removals a second a run is sized for. 7,000 until round 30, when SQLite removed 10,953 a
 * second on a quiet machine, ran out of grants after ~90,000, and the rest of its requests failed.
 */
const MAX_REMOVALS_PER_SECOND = 15_000;

/** `count` user grants imported into organisations of PER_ORG users each granted a role (one import each), as the grants to remove. */
async function importGrants(child: Child, patAuthorization: string, count: number): Promise<{ id: string; userId: string; orgId: string }[]> {
  const grants: { id: string; userId: string; orgId: string }[] = [];
  for (let first = 0; first < count; first += PER_ORG) {
    const orgId = `${(Date.now() + first) % 1_000_000_000}7`;
    const projectId = `${orgId}0`;
    const users = Array.from({ length: PER_ORG }, (_, i) => ({
      userId: `${orgId}u${i}`,
      user: { userName: `g${i}`, profile: { firstName: 'G', lastName: String(i) }, email: { email: `g${i}@example.com`, isEmailVerified: true } },
    }));
    const doc = {
      orgs: [
        {
          orgId,
          org: { name: `Grants ${orgId}` },
          projects: [{ projectId, project: { name: 'granted' } }],
          projectRoles: [{ projectId, roleKey: 'reader', displayName: 'Reader' }],
          humanUsers: users,
          userGrants: users.map((u) => ({ userId: u.userId, projectId, roleKeys: ['reader'] })),
        },
      ],
    };
    const imported = await apiCall(child, patAuthorization, 'POST', '/admin/v1/import', { timeout: '10m', data_orgs: doc });
    if (imported.errors?.length) throw new Error(`import: ${JSON.stringify(imported.errors.slice(0, 3))}`);
    for (let offset = 0; offset < PER_ORG; offset += 1000) {
      const page = await fetch(`${child.baseUrl}/management/v1/users/grants/_search`, {
        method: 'POST',
        headers: { authorization: patAuthorization, 'content-type': 'application/json', 'x-service-orgid': orgId },
        body: JSON.stringify({ query: { offset, limit: 1000 } }),
      });
      grants.push(...((await page.json()) as { result: { id: string; userId: string }[] }).result.map((g) => ({ ...g, orgId })));
    }
  }
  if (grants.length !== count) throw new Error(`expected ${count} grants, found ${grants.length}`);
  return grants;
}

/**
 * 4.2: `DELETE /management/v1/users/{userId}/grants/{grantId}` with `x-service-orgid`, each request
 * removing another grant (one aggregate each), prepared by imports of organisations of 30,000 users
 * each granted a role, as many as the run can remove. A request after the grants ran out would be
 * refused (403: it names no organisation of the caller's) and fail the run. Measured in turns on
 * every store (grantRemovalRows).
 */
async function grantRemovalSide(child: Child, patAuthorization: string, store: string, label = ''): Promise<Side> {
  // Enough grants for this side's share of a run in turns (warm-up, then four windows each after
  // half a second of its own warm-up) at up to MAX_REMOVALS_PER_SECOND, imported 30,000 per
  // organisation (one import each).
  const count = Math.max(PER_ORG, Math.ceil((MAX_REMOVALS_PER_SECOND * (settings.warmup + settings.duration + 2.5)) / PER_ORG) * PER_ORG);
  const grants = await importGrants(child, patAuthorization, count);
  let next = 0;
  return {
    target: {
      url: child.baseUrl,
      requests: [
        {
          method: 'DELETE',
          setupRequest: (req) => {
            const g = grants[next++] ?? { userId: 'none', id: 'exhausted', orgId: 'none' };
            return { ...req, path: `/management/v1/users/${g.userId}/grants/${g.id}`, headers: { authorization: patAuthorization, 'x-service-orgid': g.orgId } };
          },
        },
      ],
    },
    serverCpuSeconds: child.cpuSeconds,
    row: async (m) => ({ target: `${GRANTS_TARGET}${label}`, store, m }),
  };
}

/**
 * 4.2 on every store in turns (issue 34's target compares PostgreSQL's CPU with SQLite's), and
 * with BENCH_BASELINE_DIR the same on that checkout's server, each on a database of its own.
 */
export async function grantRemovalRows(services: Service[]): Promise<Row[]> {
  const sides: Side[] = [];
  for (const s of services) sides.push(await grantRemovalSide(s.child, s.headers.authorization, s.store));
  if (BASELINE_DIR) {
    for (const store of stores) {
      const base = await startService(store, BASELINE_DIR, `${store}-baseline`);
      sides.push(await grantRemovalSide(base.child, base.headers.authorization, store, BASELINE_LABEL));
    }
  }
  return inTurns(sides);
}

/** Issue 34's 4.2 target: on PostgreSQL ≤ 1.5× its server CPU per request on SQLite (in turns). */
export function grantVerdicts(rows: Row[]): string {
  const lines: string[] = [];
  for (const label of BASELINE_DIR ? ['', BASELINE_LABEL] : ['']) {
    const cpu = (store: string) => rows.find((r) => r.store === store && r.target === `${GRANTS_TARGET}${label}`)?.m.serverCpuMs;
    const pg = cpu('postgres');
    const lite = cpu('sqlite');
    if (!pg || !lite) continue;
    const ratio = pg / lite;
    lines.push(
      `  4.2 on PostgreSQL ÷ on SQLite${label ? ' (baseline)' : ''}, server CPU per request: ${Math.round(pg * 1000)} ÷ ${Math.round(lite * 1000)} µs = ${ratio.toFixed(2)}× (target ≤ 1.5×) → ${ratio <= 1.5 ? 'MET' : 'MISSED'}`,
    );
  }
  return lines.length ? `issue 34 4.2 target (in turns in this run; reported, not asserted):\n${lines.join('\n')}\n` : '';
}
