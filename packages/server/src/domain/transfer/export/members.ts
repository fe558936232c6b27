/** Memberships (import/members.ts): only of users of exported organisations. */
import type { Repositories } from '../../../store/store.js';
import { compact } from './compact.js';
import { listField, type OrgExport } from './section.js';

type ProjectGrantRow = Awaited<ReturnType<Repositories['projectGrants']['ownedBy']>>[number];

/** The members of the exported project grants `grants`, under the project's organisation, as ZITADEL. */
export async function* projectGrantMembers(o: OrgExport, grants: readonly ProjectGrantRow[]): AsyncGenerator<string> {
  const members = (
    await Promise.all(
      grants.map(async (g) =>
        (await o.read.transfer.projectGrantMembersOf(g.id, o.orgIds)).map(({ member }) => ({ projectId: g.projectId, grantId: g.id, userId: member.userId, roles: member.roles })),
      ),
    )
  ).flat();
  yield* listField('projectGrantMembers', members);
}

/** orgMembers, then projectMembers. */
export async function* members(o: OrgExport): AsyncGenerator<string> {
  const orgMembers = await o.read.transfer.membersOf(o.org.id, 'org', o.orgIds);
  yield* listField(
    'orgMembers',
    orgMembers.map(({ member: m }) => compact({ userId: m.userId, roles: m.roles })),
  );
  const projectMembers = await o.read.transfer.membersOf(o.org.id, 'project', o.orgIds);
  yield* listField(
    'projectMembers',
    projectMembers.map(({ member: m }) => compact({ projectId: m.scopeId, userId: m.userId, roles: m.roles })),
  );
}
