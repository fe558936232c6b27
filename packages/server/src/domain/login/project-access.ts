/**
 * ZITADEL's project checks at sign-in, set on the project of the application a user signs in to:
 * - `hasProjectCheck`: the user's organisation must own the project or hold an active grant of it
 *   (domain/projects/grants.ts);
 * - `projectRoleCheck`: the user must hold an active user grant on the project (any role).
 * Checked at every authorization (oidc/provider.ts: no grant is given to a refused user, and the
 * consent step refuses with a page), so an existing session does not get around them.
 */
import type { Repositories } from '../../store/store.js';

export interface ProjectAccessRefusal {
  /** ZITADEL's error key. */
  id: 'Errors.User.ProjectRequired' | 'Errors.User.GrantRequired';
  /** For the person, with what to do next. */
  message: string;
}

export async function projectAccessRefusal(read: Repositories, clientId: string, userId: string): Promise<ProjectAccessRefusal | undefined> {
  const app = await read.oidcApps.byClientId(clientId);
  const project = app ? await read.projects.get(app.projectId) : undefined;
  if (!project || (!project.hasProjectCheck && !project.projectRoleCheck)) return undefined;
  const user = await read.users.get(userId);
  const grantedToUsersOrg = async () => user !== undefined && (await read.projectGrants.find(project.id, user.orgId))?.state === 'PROJECT_GRANT_STATE_ACTIVE';
  if (project.hasProjectCheck && user?.orgId !== project.orgId && !(await grantedToUsersOrg())) {
    return {
      id: 'Errors.User.ProjectRequired',
      message: `Your organisation has no access to ${app!.name}. Sign in with an account of the organisation that runs it, or ask its administrator for access.`,
    };
  }
  if (project.projectRoleCheck && (await read.logins.grantedRoles(userId, [project.id], 'USER_GRANT_STATE_ACTIVE')).length === 0) {
    return {
      id: 'Errors.User.GrantRequired',
      message: `You have no role in ${app!.name} yet. Ask its administrator to grant you access, then sign in again.`,
    };
  }
  return undefined;
}
