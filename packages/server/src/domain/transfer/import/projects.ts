/**
 * The organisation's projects and their roles (a project created with the history its entry carries:
 * history.ts). A project's id is unique in the instance and its
 * name in the organisation, as for AddProject (domain/projects/projects.ts); a role's key in its
 * project, as for AddProjectRole; roles may name only this organisation's projects.
 */
import type { Repositories } from '../../../store/store.js';
import { PROJECT_AGGREGATE } from '../../projects/access.js';
import type { DataOrg } from '../document.js';
import { HistoryImport } from '../history.js';
import { importedState } from '../resource-states.js';
import { msg, type OrgImport } from './report.js';

/** Imports the projects; answers the names of those imported now, by id (apps' client ids use them). */
export async function importProjects(tx: Repositories, projects: NonNullable<DataOrg['projects']>, run: OrgImport): Promise<Map<string, string>> {
  const { orgId } = run;
  const takenProjects = await tx.transfer.existingProjectIds(projects.map((p) => p.projectId));
  const takenProjectNames = await tx.transfer.existingProjectNames(orgId);
  const projectRows: Parameters<Repositories['transfer']['insertProjects']>[0] = [];
  // The source's trail of each project created here (history.ts): its own, its roles', apps', grants' and members' events.
  const histories = await HistoryImport.of(
    tx,
    run,
    PROJECT_AGGREGATE,
    projects.map((p) => ({ id: p.projectId, history: p.identityServiceHistory })),
  );
  for (const p of projects) {
    const settings = {
      projectRoleAssertion: p.project.projectRoleAssertion ?? false,
      projectRoleCheck: p.project.projectRoleCheck ?? false,
      hasProjectCheck: p.project.hasProjectCheck ?? false,
      privateLabelingSetting: p.project.privateLabelingSetting ?? 'PRIVATE_LABELING_SETTING_UNSPECIFIED',
    };
    if (takenProjects.has(p.projectId)) {
      const here = await tx.projects.get(p.projectId);
      // Another organisation's project (or another of the document's): refused under every policy.
      if ((!here || here.orgId !== orgId) && run.policy !== 'REPORT') {
        run.clash('project', p.projectId, msg('COMMAND-opamwu', `Errors.Project.AlreadyExisting: the id is ${here ? `a project of organisation ${here.orgId}` : "another of the document's"} here`));
        continue;
      }
      if (!run.exists('project', p.projectId, msg('COMMAND-opamwu', 'Errors.Project.AlreadyExisting')) || !here) continue;
      // A new name must be free in the organisation, as for UpdateProject.
      if (here.name !== p.project.name && takenProjectNames.has(p.project.name)) {
        run.clash('project', p.projectId, msg('PROJECT-3M9f4', `Errors.Project.AlreadyExists: name "${p.project.name}" is taken in the organisation`));
        continue;
      }
      const { name, projectRoleAssertion, projectRoleCheck, hasProjectCheck, privateLabelingSetting, state } = here;
      await run.overwrite(tx, {
        type: 'project',
        id: p.projectId,
        aggregate: [PROJECT_AGGREGATE, p.projectId],
        eventType: 'project.changed',
        current: { name, projectRoleAssertion, projectRoleCheck, hasProjectCheck, privateLabelingSetting, state },
        wanted: { name: p.project.name, ...settings, state: importedState(p.state, 'PROJECT_STATE_INACTIVE') },
        stateEvent: (to) => (to === 'PROJECT_STATE_INACTIVE' ? 'project.deactivated' : 'project.reactivated'),
        apply: (change, at) => tx.projects.update(p.projectId, { ...change, sequence: at.sequence, changedAt: at.changedAt }),
      });
      takenProjectNames.add(p.project.name);
      continue;
    }
    if (takenProjectNames.has(p.project.name)) {
      run.clash('project', p.projectId, msg('PROJECT-3M9f4', `Errors.Project.AlreadyExists: name "${p.project.name}" is taken in the organisation`));
      continue;
    }
    takenProjects.add(p.projectId);
    takenProjectNames.add(p.project.name);
    const stamp = histories.take('project', p.projectId, orgId, p.identityServiceHistory, run.stamp);
    projectRows.push({ id: p.projectId, orgId, name: p.project.name, state: importedState(p.state, 'PROJECT_STATE_INACTIVE'), ...settings, ...stamp });
    run.imported('projectIds', p.projectId);
  }
  await tx.transfer.insertProjects(projectRows);
  await histories.append(tx);
  return new Map(projectRows.map((p) => [p.id, p.name]));
}

export async function importProjectRoles(tx: Repositories, roles: NonNullable<DataOrg['projectRoles']>, run: OrgImport): Promise<void> {
  const { orgId } = run;
  const { inThisOrg } = await run.projects(
    tx,
    roles.map((r) => r.projectId),
  );
  const takenRoles = await tx.transfer.existingRoleKeys([...new Set(roles.map((r) => r.projectId))]);
  const roleRows: Parameters<Repositories['transfer']['insertProjectRoles']>[0] = [];
  for (const r of roles) {
    const key = `${r.projectId}_${r.roleKey}`;
    if (!inThisOrg(r.projectId, 'project_role', key)) continue;
    if (takenRoles.has(key)) {
      if (!run.exists('project_role', key, msg('COMMAND-4m9vS', 'Errors.Project.Role.AlreadyExists'))) continue;
      const here = await tx.projects.roles.get(r.projectId, r.roleKey);
      // A role given twice in the document: created by the first.
      if (!here) {
        run.unchanged('project_role', key);
        continue;
      }
      await run.overwrite(tx, {
        type: 'project_role',
        id: key,
        aggregate: [PROJECT_AGGREGATE, r.projectId],
        eventType: 'project.role.changed',
        payload: { key: r.roleKey },
        current: { displayName: here.displayName, group: here.group },
        wanted: { displayName: r.displayName, group: r.group ?? '' },
        apply: (change, at) => tx.projects.roles.update(r.projectId, r.roleKey, { ...change, sequence: at.sequence, changedAt: at.changedAt }),
      });
      continue;
    }
    takenRoles.add(key);
    roleRows.push({ projectId: r.projectId, roleKey: r.roleKey, orgId, displayName: r.displayName, group: r.group ?? '', ...run.stamp });
    run.imported('projectRoles', key);
  }
  await tx.transfer.insertProjectRoles(roleRows);
}
