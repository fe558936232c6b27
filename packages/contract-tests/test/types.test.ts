/**
 * The server's zod schemas and the client's generated types describe the same shapes.
 * Checked by the compiler (the `typecheck` task runs before the tests).
 */
import type { components } from '@identity-service/client';
import type { z } from '@hono/zod-openapi';
import type * as common from '@identity-service/server/src/http/schemas/common.js';
import type * as events from '@identity-service/server/src/http/schemas/events.js';
import type * as idps from '@identity-service/server/src/http/schemas/idps.js';
import type * as members from '@identity-service/server/src/http/schemas/members.js';
import type * as orgs from '@identity-service/server/src/http/schemas/orgs.js';
import type * as projects from '@identity-service/server/src/http/schemas/projects.js';
import type * as texts from '@identity-service/server/src/http/schemas/texts.js';
import type * as userGrants from '@identity-service/server/src/http/schemas/user-grants.js';
import type * as users from '@identity-service/server/src/http/schemas/users.js';
import { expectTypeOf, it } from 'vitest';

type S = components['schemas'];

it('shared shapes match the generated types', () => {
  expectTypeOf<z.infer<typeof common.Details>>().toEqualTypeOf<S['Details']>();
  expectTypeOf<z.infer<typeof common.ErrorBody>>().toEqualTypeOf<S['ErrorBody']>();
  expectTypeOf<z.infer<typeof texts.SetMessageTextRequest>>().toEqualTypeOf<S['SetMessageTextRequest']>();
  expectTypeOf<z.infer<typeof texts.MessageCustomText>>().toEqualTypeOf<S['MessageCustomText']>();
});

it('identity-provider shapes match the generated types', () => {
  expectTypeOf<z.infer<typeof idps.AddJWTIDPRequest>>().toEqualTypeOf<S['AddJWTIDPRequest']>();
  expectTypeOf<z.infer<typeof idps.AddJWTIDPResponse>>().toEqualTypeOf<S['AddJWTIDPResponse']>();
  expectTypeOf<z.infer<typeof idps.IDP>>().toEqualTypeOf<S['IDP']>();
  expectTypeOf<z.infer<typeof idps.UpdateIDPRequest>>().toEqualTypeOf<S['UpdateIDPRequest']>();
  expectTypeOf<z.infer<typeof idps.UpdateIDPJWTConfigRequest>>().toEqualTypeOf<S['UpdateIDPJWTConfigRequest']>();
  expectTypeOf<z.infer<typeof idps.ListIDPsRequest>>().toEqualTypeOf<S['ListIDPsRequest']>();
  expectTypeOf<z.infer<typeof idps.ListIDPsResponse>>().toEqualTypeOf<S['ListIDPsResponse']>();
});

it('project, user-grant and event shapes match the generated types', () => {
  expectTypeOf<z.input<typeof projects.AddProjectRequest>>().toEqualTypeOf<S['AddProjectRequest']>();
  expectTypeOf<z.infer<typeof projects.Project>>().toEqualTypeOf<S['Project']>();
  expectTypeOf<z.infer<typeof projects.AddProjectRoleRequest>>().toEqualTypeOf<S['AddProjectRoleRequest']>();
  expectTypeOf<z.infer<typeof projects.ProjectRole>>().toEqualTypeOf<S['ProjectRole']>();
  expectTypeOf<z.infer<typeof projects.ProjectMember>>().toEqualTypeOf<S['ProjectMember']>();
  expectTypeOf<z.infer<typeof userGrants.AddUserGrantRequest>>().toEqualTypeOf<S['AddUserGrantRequest']>();
  expectTypeOf<z.infer<typeof userGrants.UserGrant>>().toEqualTypeOf<S['UserGrant']>();
  expectTypeOf<z.infer<typeof events.Event>>().toEqualTypeOf<S['Event']>();
});

it('organisation, user, token and member shapes match the generated types', () => {
  expectTypeOf<z.infer<typeof common.ListQuery>>().toEqualTypeOf<S['ListQuery']>();
  expectTypeOf<z.infer<typeof common.ListDetails>>().toEqualTypeOf<S['ListDetails']>();
  expectTypeOf<z.infer<typeof orgs.AddOrgRequest>>().toEqualTypeOf<S['AddOrgRequest']>();
  expectTypeOf<z.infer<typeof orgs.ListOrgsRequest>>().toEqualTypeOf<S['ListOrgsRequest']>();
  expectTypeOf<z.infer<typeof orgs.ListOrgsResponse>>().toEqualTypeOf<S['ListOrgsResponse']>();
  expectTypeOf<z.infer<typeof users.ImportHumanUserRequest>>().toEqualTypeOf<S['ImportHumanUserRequest']>();
  expectTypeOf<z.infer<typeof users.AddMachineUserRequest>>().toEqualTypeOf<S['AddMachineUserRequest']>();
  expectTypeOf<z.infer<typeof users.User>>().toEqualTypeOf<S['User']>();
  expectTypeOf<z.infer<typeof users.ListUsersRequest>>().toEqualTypeOf<S['ListUsersRequest']>();
  expectTypeOf<z.infer<typeof users.AddPersonalAccessTokenResponse>>().toEqualTypeOf<S['AddPersonalAccessTokenResponse']>();
  expectTypeOf<z.infer<typeof users.ListPersonalAccessTokensResponse>>().toEqualTypeOf<S['ListPersonalAccessTokensResponse']>();
  expectTypeOf<z.infer<typeof members.AddMemberRequest>>().toEqualTypeOf<S['AddMemberRequest']>();
  expectTypeOf<z.infer<typeof members.ListMembersRequest>>().toEqualTypeOf<S['ListMembersRequest']>();
  expectTypeOf<z.infer<typeof members.Member>>().toEqualTypeOf<S['Member']>();
});
