/**
 * Memberships: of the organisation, of its projects, and of its projects' grants (users of the
 * granted organisation). Roles are checked against the role tables the API's member commands use
 * (domain/permissions.ts); a user is a member of one scope once.
 */
import type { MemberScope } from '../../../store/repositories/members.js';
import type { Repositories } from '../../../store/store.js';
import { ORG_ROLES, PROJECT_GRANT_ROLES, PROJECT_ROLES } from '../../permissions.js';
import { PROJECT_AGGREGATE } from '../../projects/access.js';
import type { DataOrg } from '../document.js';
import { listedUnderEitherOrg } from './grant-parties.js';
import { msg, type OrgImport, roleSet } from './report.js';

export interface MemberImportInput {
  orgMembers: NonNullable<DataOrg['orgMembers']>;
  projectMembers: NonNullable<DataOrg['projectMembers']>;
  projectGrantMembers: NonNullable<DataOrg['projectGrantMembers']>;
}

export async function importMembers(tx: Repositories, input: MemberImportInput, run: OrgImport): Promise<void> {
  const { orgId } = run;
  const { orgMembers, projectMembers, projectGrantMembers } = input;
  const { inThisOrg } = await run.projects(
    tx,
    projectMembers.map((m) => m.projectId),
  );
  const { userExists } = await run.users(
    tx,
    [...orgMembers, ...projectMembers, ...projectGrantMembers].map((m) => m.userId),
  );
  const memberRows: Parameters<Repositories['transfer']['insertMembers']>[0] = [];
  const takenOrgMembers = await tx.transfer.existingMemberKeys('org', [orgId]);
  for (const m of orgMembers) {
    const id = `${orgId}_${m.userId}`;
    if (!userExists(m.userId)) continue;
    const bad = (m.roles ?? []).filter((r) => !(ORG_ROLES as readonly string[]).includes(r));
    if (bad.length || !m.roles?.length) {
      run.refuse('org_member', id, msg('ORG-4m9fS', `Errors.Org.MemberInvalid: roles ${bad.join(', ') || '(none)'}`));
      continue;
    }
    if (takenOrgMembers.has(`${orgId}_${m.userId}`)) {
      if (run.exists('org_member', id, msg('ORG-poWwe', 'Errors.Org.Member.AlreadyExists')))
        await overwriteMember(tx, run, 'org_member', id, ['org', orgId, m.userId], ['org', orgId], 'org.member.changed', m.roles);
      continue;
    }
    takenOrgMembers.add(`${orgId}_${m.userId}`);
    memberRows.push({ scopeType: 'org', scopeId: orgId, userId: m.userId, resourceOwner: orgId, roles: m.roles, ...run.stamp });
    run.imported('orgMembers', m.userId);
  }
  const takenProjectMembers = await tx.transfer.existingMemberKeys(
    'project',
    projectMembers.map((m) => m.projectId),
  );
  for (const m of projectMembers) {
    const id = `${orgId}_${m.projectId}_${m.userId}`;
    if (!inThisOrg(m.projectId, 'project_member', id) || !userExists(m.userId)) continue;
    const bad = (m.roles ?? []).filter((r) => !(PROJECT_ROLES as readonly string[]).includes(r));
    if (bad.length || !m.roles?.length) {
      run.refuse('project_member', id, msg('PROJECT-4m9fS', `Errors.Project.MemberInvalid: roles ${bad.join(', ') || '(none)'}`));
      continue;
    }
    if (takenProjectMembers.has(`${m.projectId}_${m.userId}`)) {
      if (run.exists('project_member', id, msg('PROJECT-37fug', 'Errors.AlreadyExists'))) {
        await overwriteMember(tx, run, 'project_member', id, ['project', m.projectId, m.userId], [PROJECT_AGGREGATE, m.projectId], 'project.member.changed', m.roles);
      }
      continue;
    }
    takenProjectMembers.add(`${m.projectId}_${m.userId}`);
    memberRows.push({ scopeType: 'project', scopeId: m.projectId, userId: m.userId, resourceOwner: orgId, roles: m.roles, ...run.stamp });
    run.imported('projectMembers', { projectId: m.projectId, userId: m.userId }, id);
  }
  // Project grant members: users of the granted organisation, on a grant of this organisation's project.
  for (const m of projectGrantMembers) {
    const id = `${orgId}_${m.projectId}_${m.grantId}_${m.userId}`;
    const grant = await tx.projectGrants.get(m.grantId);
    if (!grant || !listedUnderEitherOrg(grant, m.projectId, orgId)) {
      run.refuse('project_grant_member', id, msg('PROJECT-D8JxR', `Errors.Project.Grant.NotFound: ${m.grantId}`));
      continue;
    }
    if (!userExists(m.userId)) continue;
    const user = await tx.users.get(m.userId);
    const bad = (m.roles ?? []).filter((r) => !(PROJECT_GRANT_ROLES as readonly string[]).includes(r));
    if (user?.orgId !== grant.grantedOrgId || bad.length || !m.roles?.length) {
      run.refuse(
        'project_grant_member',
        id,
        msg('PROJECT-0wpld', `Errors.Project.Member.Invalid: ${bad.length || !m.roles?.length ? `roles ${bad.join(', ') || '(none)'}` : 'the user is not of the granted organisation'}`),
      );
      continue;
    }
    if ((await tx.members.get('project_grant', grant.id, m.userId)) || memberRows.some((r) => r.scopeType === 'project_grant' && r.scopeId === grant.id && r.userId === m.userId)) {
      if (run.exists('project_grant_member', id, msg('PROJECT-37fug', 'Errors.AlreadyExists'))) {
        await overwriteMember(tx, run, 'project_grant_member', id, ['project_grant', grant.id, m.userId], [PROJECT_AGGREGATE, m.projectId], 'project.grant.member.changed', m.roles);
      }
      continue;
    }
    memberRows.push({ scopeType: 'project_grant', scopeId: grant.id, userId: m.userId, resourceOwner: grant.grantedOrgId, roles: m.roles, ...run.stamp });
    run.imported('projectGrantMembers', { projectId: m.projectId, grantId: m.grantId, userId: m.userId }, id);
  }
  await tx.transfer.insertMembers(memberRows);
}

/** OVERWRITE of a membership: its roles take the document's (a membership given twice in the document: created by the first). */
async function overwriteMember(
  tx: Repositories,
  run: OrgImport,
  type: string,
  id: string,
  [scopeType, scopeId, userId]: [MemberScope, string, string],
  aggregate: [string, string],
  eventType: string,
  roles: string[],
): Promise<void> {
  const here = await tx.members.get(scopeType, scopeId, userId);
  if (!here) return run.unchanged(type, id);
  await run.overwrite(tx, {
    type,
    id,
    aggregate,
    eventType,
    payload: { userId, ...(scopeType === 'project_grant' ? { grantId: scopeId } : {}) },
    current: { roles: roleSet(here.roles) },
    wanted: { roles: roleSet(roles) },
    apply: (_, at) => tx.members.update(scopeType, scopeId, userId, roles, at.sequence, at.changedAt),
  });
}
