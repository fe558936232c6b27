/**
 * The one place that maps roles to permissions: ZITADEL's defaults (cmd/defaults.yaml,
 * InternalAuthZ.RolePermissionMappings; reference Appendix B).
 *
 * Roles held on a project (PROJECT_*) yield permissions scoped to that project: they count
 * only for objects of that project (see `Permissions.allowsProject`); roles held on a project
 * grant (PROJECT_GRANT_*) likewise, scoped to the grant's id, in the granted organisation.
 */
const IAM_OWNER = [
  'iam.read', 'iam.write', 'iam.policy.read', 'iam.policy.write', 'iam.policy.delete', 'iam.member.read',
  'iam.member.write', 'iam.member.delete', 'iam.idp.read', 'iam.idp.write', 'iam.idp.delete', 'iam.action.read',
  'iam.action.write', 'iam.action.delete', 'iam.flow.read', 'iam.flow.write', 'iam.flow.delete', 'iam.feature.read',
  'iam.feature.write', 'iam.feature.delete', 'iam.restrictions.read', 'iam.restrictions.write', 'iam.web_key.write',
  'iam.web_key.delete', 'iam.web_key.read', 'iam.debug.write', 'iam.debug.read', 'org.read', 'org.global.read',
  'org.create', 'org.write', 'org.delete', 'org.member.read', 'org.member.write', 'org.member.delete', 'org.idp.read',
  'org.idp.write', 'org.idp.delete', 'org.action.read', 'org.action.write', 'org.action.delete', 'org.flow.read',
  'org.flow.write', 'org.flow.delete', 'org.feature.read', 'org.feature.write', 'org.feature.delete', 'user.read',
  'user.global.read', 'user.write', 'user.delete', 'user.grant.read', 'user.grant.write', 'user.grant.delete',
  'user.membership.read', 'user.credential.write', 'user.passkey.write', 'user.feature.read', 'user.feature.write',
  'user.feature.delete', 'policy.read', 'policy.write', 'policy.delete', 'project.read', 'project.create',
  'project.write', 'project.delete', 'project.member.read', 'project.member.write', 'project.member.delete',
  'project.role.read', 'project.role.write', 'project.role.delete', 'project.app.read', 'project.app.write',
  'project.app.delete', 'project.grant.read', 'project.grant.write', 'project.grant.delete',
  'project.grant.member.read', 'project.grant.member.write', 'project.grant.member.delete', 'events.read',
  'milestones.read', 'session.read', 'session.write', 'session.delete', 'action.target.read', 'action.target.write',
  'action.target.delete', 'action.execution.read', 'action.execution.write', 'userschema.read', 'userschema.write',
  'userschema.delete',
];

export const ROLE_PERMISSIONS: Readonly<Record<string, readonly string[]>> = {
  IAM_OWNER,
  IAM_OWNER_VIEWER: [
    'iam.read', 'iam.policy.read', 'iam.member.read', 'iam.idp.read', 'iam.action.read', 'iam.flow.read',
    'iam.restrictions.read', 'iam.feature.read', 'iam.web_key.read', 'iam.debug.read', 'org.read', 'org.member.read',
    'org.idp.read', 'org.action.read', 'org.flow.read', 'org.feature.read', 'user.read', 'user.global.read',
    'user.grant.read', 'user.membership.read', 'user.feature.read', 'policy.read', 'project.read',
    'project.member.read', 'project.role.read', 'project.app.read', 'project.grant.read', 'project.grant.member.read',
    'events.read', 'milestones.read', 'action.target.read', 'action.execution.read', 'userschema.read', 'session.read',
  ],
  IAM_ORG_MANAGER: [
    'org.read', 'org.global.read', 'org.create', 'org.write', 'org.delete', 'org.member.read', 'org.member.write',
    'org.member.delete', 'org.idp.read', 'org.idp.write', 'org.idp.delete', 'org.action.read', 'org.action.write',
    'org.action.delete', 'org.flow.read', 'org.flow.write', 'org.flow.delete', 'org.feature.read', 'org.feature.write',
    'org.feature.delete', 'user.read', 'user.global.read', 'user.write', 'user.delete', 'user.grant.read',
    'user.grant.write', 'user.grant.delete', 'user.membership.read', 'user.credential.write', 'user.passkey.write',
    'user.feature.read', 'user.feature.write', 'user.feature.delete', 'policy.read', 'policy.write', 'policy.delete',
    'project.read', 'project.create', 'project.write', 'project.delete', 'project.member.read', 'project.member.write',
    'project.member.delete', 'project.role.read', 'project.role.write', 'project.role.delete', 'project.app.read',
    'project.app.write', 'project.app.delete', 'project.grant.read', 'project.grant.write', 'project.grant.delete',
    'project.grant.member.read', 'project.grant.member.write', 'project.grant.member.delete', 'session.read',
    'session.delete',
  ],
  IAM_USER_MANAGER: [
    'org.read', 'org.global.read', 'org.member.read', 'org.member.delete', 'user.read', 'user.global.read',
    'user.write', 'user.delete', 'user.grant.read', 'user.grant.write', 'user.grant.delete', 'user.membership.read',
    'user.passkey.write', 'user.feature.read', 'user.feature.write', 'user.feature.delete', 'project.read',
    'project.member.read', 'project.role.read', 'project.app.read', 'project.grant.read', 'project.grant.write',
    'project.grant.delete', 'project.grant.member.read', 'session.read', 'session.delete',
  ],
  IAM_ADMIN_IMPERSONATOR: ['admin.impersonation', 'impersonation'],
  IAM_END_USER_IMPERSONATOR: ['impersonation'],
  IAM_LOGIN_CLIENT: [
    'iam.read', 'iam.policy.read', 'iam.member.read', 'iam.member.write', 'iam.idp.read', 'iam.feature.read',
    'iam.restrictions.read', 'org.read', 'org.member.read', 'org.member.write', 'org.idp.read', 'org.feature.read',
    'user.read', 'user.write', 'user.grant.read', 'user.grant.write', 'user.membership.read', 'user.credential.write',
    'user.passkey.write', 'user.feature.read', 'policy.read', 'project.read', 'project.member.read',
    'project.member.write', 'project.role.read', 'project.app.read', 'project.grant.read',
    'project.grant.member.read', 'project.grant.member.write', 'session.read', 'session.write', 'session.link',
    'session.delete', 'userschema.read',
  ],
  ORG_OWNER: [
    'org.read', 'org.global.read', 'org.write', 'org.delete', 'org.member.read', 'org.member.write',
    'org.member.delete', 'org.idp.read', 'org.idp.write', 'org.idp.delete', 'org.action.read', 'org.action.write',
    'org.action.delete', 'org.flow.read', 'org.flow.write', 'org.flow.delete', 'org.feature.read', 'org.feature.write',
    'org.feature.delete', 'user.read', 'user.global.read', 'user.write', 'user.delete', 'user.grant.read',
    'user.grant.write', 'user.grant.delete', 'user.membership.read', 'user.credential.write', 'user.passkey.write',
    'user.feature.read', 'user.feature.write', 'user.feature.delete', 'policy.read', 'policy.write', 'policy.delete',
    'project.read', 'project.create', 'project.write', 'project.delete', 'project.member.read', 'project.member.write',
    'project.member.delete', 'project.role.read', 'project.role.write', 'project.role.delete', 'project.app.read',
    'project.app.write', 'project.grant.read', 'project.grant.write', 'project.grant.delete',
    'project.grant.member.read', 'project.grant.member.write', 'project.grant.member.delete', 'session.read',
    'session.delete',
  ],
  ORG_USER_MANAGER: [
    'org.read', 'user.read', 'user.global.read', 'user.write', 'user.delete', 'user.grant.read', 'user.grant.write',
    'user.grant.delete', 'user.membership.read', 'user.feature.read', 'user.feature.write', 'user.feature.delete',
    'policy.read', 'project.read', 'project.role.read', 'session.read', 'session.delete',
  ],
  ORG_OWNER_VIEWER: [
    'org.read', 'org.member.read', 'org.idp.read', 'org.action.read', 'org.flow.read', 'org.feature.read', 'user.read',
    'user.global.read', 'user.grant.read', 'user.membership.read', 'user.feature.read', 'policy.read', 'project.read',
    'project.member.read', 'project.role.read', 'project.app.read', 'project.grant.read', 'project.grant.member.read',
    'project.grant.user.grant.read',
  ],
  ORG_SETTINGS_MANAGER: [
    'org.read', 'org.write', 'org.member.read', 'org.idp.read', 'org.idp.write', 'org.idp.delete', 'org.feature.read',
    'org.feature.write', 'org.feature.delete', 'policy.read', 'policy.write', 'policy.delete',
  ],
  ORG_USER_PERMISSION_EDITOR: [
    'org.read', 'org.member.read', 'user.read', 'user.global.read', 'user.grant.read', 'user.grant.write',
    'user.grant.delete', 'policy.read', 'project.read', 'project.member.read', 'project.role.read', 'project.app.read',
    'project.grant.read', 'project.grant.member.read',
  ],
  ORG_PROJECT_PERMISSION_EDITOR: [
    'org.read', 'org.member.read', 'user.read', 'user.global.read', 'user.grant.read', 'user.grant.write',
    'user.grant.delete', 'policy.read', 'project.read', 'project.member.read', 'project.role.read', 'project.app.read',
    'project.grant.read', 'project.grant.write', 'project.grant.delete', 'project.grant.member.read',
  ],
  ORG_PROJECT_CREATOR: ['user.global.read', 'policy.read', 'project.read:self', 'project.create'],
  ORG_ADMIN_IMPERSONATOR: ['admin.impersonation', 'impersonation'],
  ORG_END_USER_IMPERSONATOR: ['impersonation'],
  PROJECT_OWNER: [
    'org.global.read', 'policy.read', 'project.read', 'project.write', 'project.delete', 'project.member.read',
    'project.member.write', 'project.member.delete', 'project.role.read', 'project.role.write', 'project.role.delete',
    'project.app.read', 'project.app.write', 'project.app.delete', 'project.grant.read', 'project.grant.write',
    'project.grant.delete', 'project.grant.member.read', 'project.grant.member.write', 'project.grant.member.delete',
    'user.read', 'user.global.read', 'user.grant.read', 'user.grant.write', 'user.grant.delete', 'user.membership.read',
  ],
  PROJECT_OWNER_VIEWER: [
    'policy.read', 'project.read', 'project.member.read', 'project.role.read', 'project.app.read',
    'project.grant.read', 'project.grant.member.read', 'user.read', 'user.global.read', 'user.grant.read',
    'user.membership.read',
  ],
  // Members of a project grant (ZITADEL's defaults): scoped to the grant, in the granted organisation.
  PROJECT_GRANT_OWNER: [
    'policy.read', 'org.global.read', 'project.read', 'project.grant.read', 'project.grant.member.read',
    'project.grant.member.write', 'project.grant.member.delete', 'user.read', 'user.global.read', 'user.grant.read',
    'user.grant.write', 'user.grant.delete', 'user.membership.read',
  ],
  PROJECT_GRANT_OWNER_VIEWER: [
    'policy.read', 'project.read', 'project.grant.read', 'project.grant.member.read', 'user.read', 'user.global.read',
    'user.grant.read', 'user.membership.read',
  ],
  PROJECT_OWNER_GLOBAL: [
    'org.global.read', 'policy.read', 'project.read', 'project.write', 'project.delete', 'project.member.read',
    'project.member.write', 'project.member.delete', 'project.role.read', 'project.role.write', 'project.role.delete',
    'project.app.read', 'project.app.write', 'project.app.delete', 'user.global.read', 'user.grant.read',
    'user.grant.write', 'user.grant.delete', 'user.membership.read',
  ],
  PROJECT_OWNER_VIEWER_GLOBAL: [
    'policy.read', 'project.read', 'project.member.read', 'project.role.read', 'project.app.read',
    'project.grant.read', 'project.grant.member.read', 'user.global.read', 'user.grant.read', 'user.membership.read',
  ],
};

/** Roles by where they can be held. */
export const INSTANCE_ROLES = ['IAM_OWNER', 'IAM_OWNER_VIEWER', 'IAM_ORG_MANAGER', 'IAM_USER_MANAGER', 'IAM_ADMIN_IMPERSONATOR', 'IAM_END_USER_IMPERSONATOR', 'IAM_LOGIN_CLIENT'] as const;
export const ORG_ROLES = ['ORG_OWNER', 'ORG_USER_MANAGER', 'ORG_OWNER_VIEWER', 'ORG_SETTINGS_MANAGER', 'ORG_USER_PERMISSION_EDITOR', 'ORG_PROJECT_PERMISSION_EDITOR', 'ORG_PROJECT_CREATOR', 'ORG_ADMIN_IMPERSONATOR', 'ORG_END_USER_IMPERSONATOR'] as const;
export const PROJECT_ROLES = ['PROJECT_OWNER', 'PROJECT_OWNER_VIEWER', 'PROJECT_OWNER_GLOBAL', 'PROJECT_OWNER_VIEWER_GLOBAL'] as const;
export const PROJECT_GRANT_ROLES = ['PROJECT_GRANT_OWNER', 'PROJECT_GRANT_OWNER_VIEWER'] as const;

export interface Membership {
  scopeType: string;
  scopeId: string;
  roles: readonly string[];
}

/**
 * What a caller may do in one organisation context. Instance and organisation roles grant
 * permissions everywhere in that context; project roles only for their project.
 */
export class Permissions {
  private readonly global = new Set<string>();
  private readonly byProject = new Map<string, Set<string>>();

  constructor(memberships: readonly Membership[]) {
    for (const m of memberships) {
      for (const role of m.roles) {
        for (const permission of ROLE_PERMISSIONS[role] ?? []) {
          // A project grant's roles count only for that grant (its id; ids never collide with projects').
          if (m.scopeType === 'project' || m.scopeType === 'project_grant') {
            let projects = this.byProject.get(permission);
            if (!projects) this.byProject.set(permission, (projects = new Set()));
            projects.add(m.scopeId);
          } else {
            this.global.add(permission);
          }
        }
      }
    }
  }

  /** Held without restriction (through an instance or organisation role). */
  has(permission: string): boolean {
    return this.global.has(permission);
  }

  /** Held at all, possibly only for some projects. */
  hasAny(permission: string): boolean {
    return this.global.has(permission) || this.byProject.has(permission);
  }

  /**
   * The projects this permission is limited to: undefined when it is held without restriction
   * (lists then need no project filter), else the projects of the caller's project roles.
   */
  projectsWith(permission: string): string[] | undefined {
    if (this.global.has(permission)) return undefined;
    return [...(this.byProject.get(permission) ?? [])];
  }

  /** Held for objects of this project (unrestricted, or through a role on the project). */
  allowsProject(permission: string, projectId: string): boolean {
    return this.global.has(permission) || (this.byProject.get(permission)?.has(projectId) ?? false);
  }
}
