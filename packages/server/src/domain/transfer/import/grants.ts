/**
 * Project grants (ZITADEL's DataProjectGrant; the id is kept: user grants name it) and user grants.
 * A project grant gives another organisation of this instance roles of this organisation's project,
 * once per (project, organisation), as for AddProjectGrant (domain/projects/grants.ts); a user grant
 * gives a user roles of this organisation's project, or of a project granted to it, once per
 * (project, user), as for AddUserGrant (domain/user-grants/). A user grant keeps the id this service's
 * export gives it (`identityServiceGrantId`; ZITADEL's AddUserGrantRequest has none, so a document
 * from ZITADEL gets new ones): integrations that stored a grant's id keep finding it after a move.
 */

import type { ProjectGrantRow } from '../../../store/repositories/project-grants.js';
import type { UserGrantRow } from '../../../store/repositories/user-grants.js';
import type { Repositories } from '../../../store/store.js';
import { newId } from '../../ids.js';
import { PROJECT_AGGREGATE } from '../../projects/access.js';
import { cascadeGrantRoles, USER_GRANT_AGGREGATE } from '../../user-grants/cascade.js';
import type { DataOrg } from '../document.js';
import { HistoryImport } from '../history.js';
import { importedState } from '../resource-states.js';
import { listedUnderEitherOrg } from './grant-parties.js';
import { msg, type OrgImport, roleSet } from './report.js';

export async function importProjectGrants(tx: Repositories, projectGrants: NonNullable<DataOrg['projectGrants']>, run: OrgImport): Promise<void> {
  const { orgId } = run;
  const { inThisOrg } = await run.projects(
    tx,
    projectGrants.map((g) => g.projectGrant.projectId),
  );
  const projectGrantRoles = await tx.transfer.existingRoleKeys([...new Set(projectGrants.map((g) => g.projectGrant.projectId))]);
  const takenProjectGrantIds = await tx.projectGrants.existingIds(projectGrants.map((g) => g.grantId).filter(Boolean));
  for (const { grantId: givenId, projectGrant: pg, state: givenState } of projectGrants) {
    const id = `${orgId}_${pg.projectId}_${pg.grantedOrgId}`;
    if (!inThisOrg(pg.projectId, 'project_grant', id)) continue;
    if (pg.grantedOrgId === orgId || !(await tx.orgs.exists(pg.grantedOrgId))) {
      run.refuse('project_grant', id, msg('PROJECT-3m9s1', `Errors.Project.Grant.Invalid: granted organisation ${pg.grantedOrgId} is not another organisation of this instance`));
      continue;
    }
    const missing = (pg.roleKeys ?? []).filter((k) => !projectGrantRoles.has(`${pg.projectId}_${k}`));
    if (missing.length) {
      run.refuse('project_grant', id, msg('PROJECT-m9gDs', `Errors.Project.Role.NotFound: ${missing.join(', ')}`));
      continue;
    }
    const here = await tx.projectGrants.find(pg.projectId, pg.grantedOrgId);
    if ((givenId && takenProjectGrantIds.has(givenId)) || here) {
      // Not the grant of this project to that organisation under the document's id: refused under every policy.
      if ((!here || (givenId && here.id !== givenId)) && run.policy !== 'REPORT') {
        run.clash('project_grant', id, msg('V3-DKcYh', 'Errors.Project.Grant.AlreadyExists: the id is another project grant here'));
        continue;
      }
      if (!run.exists('project_grant', id, msg('V3-DKcYh', 'Errors.Project.Grant.AlreadyExists')) || !here) continue;
      const roleKeys = pg.roleKeys ?? [];
      await run.overwrite(tx, {
        type: 'project_grant',
        id,
        aggregate: [PROJECT_AGGREGATE, pg.projectId],
        eventType: 'project.grant.changed',
        payload: { grantId: here.id },
        current: { roleKeys: roleSet(here.roleKeys), state: here.state },
        wanted: { roleKeys: roleSet(roleKeys), state: importedState(givenState, 'PROJECT_GRANT_STATE_INACTIVE') },
        stateEvent: (to) => (to === 'PROJECT_GRANT_STATE_INACTIVE' ? 'project.grant.deactivated' : 'project.grant.reactivated'),
        apply: async ({ roleKeys: changedRoles, state }, at) => {
          await tx.projectGrants.update(here.id, { ...(changedRoles ? { roleKeys } : {}), ...(state ? { state: state as ProjectGrantRow['state'] } : {}), ...at });
          // Roles taken out of the grant leave its user grants too, as UpdateProjectGrant does.
          if (changedRoles) await cascadeGrantRoles(tx, run.creator, here.id, roleKeys);
        },
      });
      continue;
    }
    const grantId = givenId || newId();
    takenProjectGrantIds.add(grantId);
    await tx.projectGrants.insert({
      id: grantId,
      projectId: pg.projectId,
      orgId,
      grantedOrgId: pg.grantedOrgId,
      roleKeys: pg.roleKeys ?? [],
      state: importedState(givenState, 'PROJECT_GRANT_STATE_INACTIVE'),
      ...run.stamp,
    });
    run.imported('projectGrants', { grantId, projectId: pg.projectId, orgId }, id);
  }
}

export async function importUserGrants(tx: Repositories, grants: NonNullable<DataOrg['userGrants']>, run: OrgImport): Promise<void> {
  const { orgId } = run;
  const { inThisOrg } = await run.projects(
    tx,
    grants.map((g) => g.projectId),
  );
  const { userExists } = await run.users(
    tx,
    grants.map((g) => g.userId),
  );
  const takenGrants = await tx.transfer.existingUserGrantKeys(
    orgId,
    grants.map((g) => g.userId),
  );
  const takenGrantIds = await tx.transfer.existingUserGrantIds(grants.flatMap((g) => (g.identityServiceGrantId ? [g.identityServiceGrantId] : [])));
  const allRoleKeys = await tx.transfer.existingRoleKeys([...new Set(grants.map((g) => g.projectId))]);
  const grantRows: Parameters<Repositories['transfer']['insertUserGrants']>[0] = [];
  // The source's trail of each user grant created here (history.ts); an id the import mints has none here.
  const histories = await HistoryImport.of(
    tx,
    run,
    USER_GRANT_AGGREGATE,
    grants.flatMap((g) => (g.identityServiceGrantId ? [{ id: g.identityServiceGrantId, history: g.identityServiceHistory }] : [])),
  );
  for (const g of grants) {
    const id = `${orgId}_${g.projectId}_${g.userId}`;
    // Through a project grant: the grant must give this organisation the project, and the roles.
    const projectGrant = g.projectGrantId ? await tx.projectGrants.get(g.projectGrantId) : undefined;
    if (g.projectGrantId && (!projectGrant || !listedUnderEitherOrg(projectGrant, g.projectId, orgId))) {
      run.refuse('user_grant', id, msg('COMMAND-4m9ff', `Errors.Project.Grant.NotFound: project grant ${g.projectGrantId}`));
      continue;
    }
    if (!projectGrant && !inThisOrg(g.projectId, 'user_grant', id)) continue;
    if (!userExists(g.userId)) continue;
    // Given through a project grant, the user grant is the granted organisation's, wherever it is listed.
    const owner = projectGrant?.grantedOrgId ?? orgId;
    const key = owner === orgId ? `${g.projectId}_${g.userId}` : `${owner}_${g.projectId}_${g.userId}`;
    const missing = (g.roleKeys ?? []).filter((k) => (projectGrant ? !projectGrant.roleKeys.includes(k) : !allRoleKeys.has(`${g.projectId}_${k}`)));
    if (takenGrants.has(key) || (owner !== orgId && (await tx.userGrants.find(owner, g.userId, g.projectId)))) {
      if (!run.exists('user_grant', id, msg('V3-DKcYh', 'Errors.UserGrant.AlreadyExists'))) continue;
      const here = await tx.userGrants.find(owner, g.userId, g.projectId);
      // A grant given twice in the document: created by the first.
      if (!here) {
        run.unchanged('user_grant', id);
        continue;
      }
      if (missing.length) {
        run.refuse('user_grant', id, msg('COMMAND-mm9F4', `Errors.Project.Role.NotFound: ${missing.join(', ')}`));
        continue;
      }
      await run.overwrite(tx, {
        type: 'user_grant',
        id,
        aggregate: [USER_GRANT_AGGREGATE, here.id],
        eventType: 'user.grant.changed',
        payload: { userId: g.userId, projectId: g.projectId },
        current: { roleKeys: roleSet(here.roleKeys), state: here.state },
        wanted: { roleKeys: roleSet(g.roleKeys), state: importedState(g.state, 'USER_GRANT_STATE_INACTIVE') },
        stateEvent: (to) => (to === 'USER_GRANT_STATE_INACTIVE' ? 'user.grant.deactivated' : 'user.grant.reactivated'),
        apply: ({ roleKeys: changedRoles, state }, at) =>
          tx.userGrants.update(here.id, { ...(changedRoles ? { roleKeys: g.roleKeys ?? [] } : {}), ...(state ? { state: state as UserGrantRow['state'] } : {}), ...at }),
      });
      continue;
    }
    if (missing.length) {
      run.refuse('user_grant', id, msg('COMMAND-mm9F4', `Errors.Project.Role.NotFound: ${missing.join(', ')}`));
      continue;
    }
    // The grant is new here; the id the document gives it must be free (a grant that exists under
    // another id, e.g. from an import that minted one, is found by its project and user above).
    const givenId = g.identityServiceGrantId;
    if (givenId && takenGrantIds.has(givenId)) {
      run.clash('user_grant', id, msg('V3-DKcYh', `Errors.UserGrant.AlreadyExists: the id ${givenId} is another user grant here`));
      continue;
    }
    const grantId = givenId || newId();
    takenGrantIds.add(grantId);
    takenGrants.add(key);
    grantRows.push({
      id: grantId,
      orgId: owner,
      userId: g.userId,
      projectId: g.projectId,
      projectGrantId: projectGrant?.id ?? null,
      roleKeys: g.roleKeys ?? [],
      state: importedState(g.state, 'USER_GRANT_STATE_INACTIVE'),
      ...histories.take('user_grant', grantId, owner, g.identityServiceHistory, run.stamp),
    });
    run.imported('userGrants', { projectId: g.projectId, userId: g.userId }, id);
  }
  await tx.transfer.insertUserGrants(grantRows);
  await histories.append(tx);
}
