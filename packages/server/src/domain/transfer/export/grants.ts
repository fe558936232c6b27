/**
 * Project grants and user grants (import/grants.ts). Only what stays whole in the document goes:
 * a project grant to an exported organisation, a user grant given through a project grant only
 * with that grant.
 */
import type { Repositories } from '../../../store/store.js';
import { USER_GRANT_AGGREGATE } from '../../user-grants/cascade.js';
import { HISTORY_PAGE, withHistories } from '../history.js';
import { exportedState } from '../resource-states.js';
import { compact } from './compact.js';
import { projectGrantMembers } from './members.js';
import { listField, type OrgExport, PAGE, pagedList } from './section.js';

type GrantRow = Awaited<ReturnType<Repositories['transfer']['userGrantsPage']>>[number];

/** Grants of this organisation's projects to exported organisations (as ZITADEL), then their members. */
export async function* projectGrants(o: OrgExport): AsyncGenerator<string> {
  const grants = (await o.read.projectGrants.ownedBy(o.org.id)).filter((g) => o.orgIds.includes(g.grantedOrgId));
  yield* listField(
    'projectGrants',
    grants.map((g) => ({
      grantId: g.id,
      projectGrant: compact({ projectId: g.projectId, grantedOrgId: g.grantedOrgId, roleKeys: g.roleKeys }),
      ...exportedState(g.state),
    })),
  );
  yield* projectGrantMembers(o, grants);
}

/** userGrants, a page at a time; their ids are this service's extension (identityServiceGrantId). */
export function userGrants(o: OrgExport): AsyncGenerator<string> {
  const pageSize = o.req.withHistory ? HISTORY_PAGE : PAGE;
  return pagedList<GrantRow>(
    'userGrants',
    (last) => o.read.transfer.userGrantsPage(o.org.id, o.orgIds, last?.grant.id ?? '', pageSize),
    async (page) => {
      // A user grant given through a project grant goes only with that grant (its project's organisation exported).
      const viaGrant = [...new Set(page.flatMap(({ grant: g }) => (g.projectGrantId ? [g.projectGrantId] : [])))];
      const exportedGrants = new Set((await Promise.all(viaGrant.map((id) => o.read.projectGrants.get(id)))).flatMap((g) => (g && o.orgIds.includes(g.orgId) ? [g.id] : [])));
      const toItem = ({ grant: g }: GrantRow) =>
        !g.projectGrantId || exportedGrants.has(g.projectGrantId)
          ? compact({ userId: g.userId, projectId: g.projectId, projectGrantId: g.projectGrantId ?? undefined, roleKeys: g.roleKeys, ...exportedState(g.state), identityServiceGrantId: g.id })
          : undefined;
      // With `withHistory` each grant's events (history.ts).
      return o.req.withHistory ? withHistories(o.read, USER_GRANT_AGGREGATE, page, (row) => row.grant.id, toItem) : toItem;
    },
    o.deadline,
    pageSize,
  );
}
