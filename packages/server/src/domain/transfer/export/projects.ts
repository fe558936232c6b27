/** Projects and their roles (import/projects.ts). */
import { PROJECT_AGGREGATE } from '../../projects/access.js';
import { withHistories } from '../history.js';
import { exportedState } from '../resource-states.js';
import { compact } from './compact.js';
import { listField, type OrgExport } from './section.js';

export async function* projects(o: OrgExport): AsyncGenerator<string> {
  const projects = await o.read.transfer.projectsOf(o.org.id);
  const toItem = (p: (typeof projects)[number]) => ({
    projectId: p.id,
    project: compact({
      name: p.name,
      projectRoleAssertion: p.projectRoleAssertion,
      projectRoleCheck: p.projectRoleCheck,
      hasProjectCheck: p.hasProjectCheck,
      privateLabelingSetting: p.privateLabelingSetting === 'PRIVATE_LABELING_SETTING_UNSPECIFIED' ? undefined : p.privateLabelingSetting,
    }),
    ...exportedState(p.state),
  });
  // With `withHistory` each project's events (its roles', apps', grants' and members' among them: history.ts).
  const item = o.req.withHistory ? await withHistories(o.read, PROJECT_AGGREGATE, projects, (p) => p.id, toItem) : toItem;
  yield* listField('projects', projects.map(item));
}

export async function* projectRoles(o: OrgExport): AsyncGenerator<string> {
  const roles = await o.read.transfer.projectRolesOf(o.org.id);
  yield* listField(
    'projectRoles',
    roles.map((r) => compact({ projectId: r.projectId, roleKey: r.roleKey, displayName: r.displayName, group: r.group })),
  );
}
