/** Projects and their roles (import/projects.ts). */
import { exportedState } from '../resource-states.js';
import { compact } from './compact.js';
import { listField, type OrgExport } from './section.js';

export async function* projects(o: OrgExport): AsyncGenerator<string> {
  const projects = await o.read.transfer.projectsOf(o.org.id);
  yield* listField(
    'projects',
    projects.map((p) => ({
      projectId: p.id,
      project: compact({
        name: p.name,
        projectRoleAssertion: p.projectRoleAssertion,
        projectRoleCheck: p.projectRoleCheck,
        hasProjectCheck: p.hasProjectCheck,
        privateLabelingSetting: p.privateLabelingSetting === 'PRIVATE_LABELING_SETTING_UNSPECIFIED' ? undefined : p.privateLabelingSetting,
      }),
      ...exportedState(p.state),
    })),
  );
}

export async function* projectRoles(o: OrgExport): AsyncGenerator<string> {
  const roles = await o.read.transfer.projectRolesOf(o.org.id);
  yield* listField(
    'projectRoles',
    roles.map((r) => compact({ projectId: r.projectId, roleKey: r.roleKey, displayName: r.displayName, group: r.group })),
  );
}
