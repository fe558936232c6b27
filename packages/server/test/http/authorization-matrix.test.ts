/**
 * Every operation × every default role: the outcome (2xx, 403, 404, …) must follow from the role
 * table (domain/permissions.ts ROLE_PERMISSIONS) and the permission each operation requires —
 * nothing here lists outcomes by hand. Callers (a fresh machine user per call, so one call's side
 * effects, e.g. becoming PROJECT_OWNER of a created project, cannot leak into the next):
 *   - instance roles (IAM_*), user in org A;
 *   - organisation roles in A, acting on A;
 *   - organisation roles in B, acting on A through x-service-orgid (no rights there);
 *   - organisation roles in B, acting in B on objects of A (those do not exist there);
 *   - project roles on A's project P (the one the operations address) and on another project.
 * Every allowed write must appear in the audit trail with the caller as editor.
 *
 * The operations to cover come from the spec (every method under /admin/v1 and /management/v1):
 * an operation added to the spec without an entry here fails this suite.
 */

import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCode } from '../../src/domain/notifications/codes.js';
import { INSTANCE_ROLES, ORG_ROLES, PROJECT_ROLES, ROLE_PERMISSIONS } from '../../src/domain/permissions.js';
import { loadSpec } from '../../src/http/spec.js';
import { createTestInstance, describeEachStore, insertHumanUser, insertMachineUserWithToken, insertOrg, type TestInstance } from '../support/instance.js';
import { type SmtpSink, startSmtpSink } from '../support/mail.js';
import { tempDir } from '../support/temp-dir.js';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Every operation of the admin and management APIs, as the spec declares it. */
const SPEC_OPERATIONS = Object.entries(loadSpec().paths as Record<string, Record<string, { operationId: string }>>)
  .filter(([path]) => path.startsWith('/admin/v1/') || path.startsWith('/management/v1/'))
  .flatMap(([path, item]) =>
    HTTP_METHODS.filter((m) => item[m]).map((m) => ({
      id: item[m].operationId,
      method: m.toUpperCase(),
      template: path,
      // `{param}` matches one path segment: a concrete request path must fit the template.
      pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    })),
  );

type Variant = 'instance' | 'orgOwn' | 'orgOtherHeader' | 'orgOtherContext' | 'projectOwn' | 'projectOther';

interface Fixture {
  orgA: string;
  orgB: string;
  project: string;
  otherProject: string;
}

interface Operation {
  id: string;
  /** null: any authenticated caller. */
  permission: string | null;
  /** 'project': a permission from a project role counts only for the addressed project P. */
  scope: 'instance' | 'org' | 'project';
  /** The status a caller holding the permission gets when acting in B on A's object (undefined: acts on B, allowed). */
  foreign?: number;
  write: boolean;
  /**
   * A permission that lets a caller see the object without holding `permission`: such a caller
   * acting in B on A's object gets `foreign` (the object does not exist there), not 403.
   */
  visibleWith?: string;
  /** Prepares what the call needs (as the admin) and returns the request. */
  request: (f: Fixture) => Promise<{ method: string; path: string; body?: unknown }>;
}

describeEachStore('authorization matrix', (dialect) => {
  let t: TestInstance;
  let f: Fixture;
  let n = 0;
  const unique = (prefix: string) => `${prefix}-${++n}`;
  const inA = () => ({ 'x-service-orgid': f.orgA });
  async function admin(method: string, path: string, body?: unknown) {
    const res = await t.call(method, path, { headers: inA(), body });
    expect(res.status, `${method} ${path}: ${await res.clone().text()}`).toBe(200);
    return res.json();
  }
  const human = async () => (await insertHumanUser(t, { orgId: f.orgA })).userId;
  /** A grant of P to a new organisation with one user: its members' path, and a member body for that user. */
  const grantWithUser = async () => {
    const grantedOrgId = (await insertOrg(t, unique('Granted'))).orgId;
    const grantId = (await admin('POST', `/management/v1/projects/${f.project}/grants`, { grantedOrgId, roleKeys: ['reader'] })).grantId as string;
    const userId = (await insertHumanUser(t, { orgId: grantedOrgId })).userId;
    return { path: `/management/v1/projects/${f.project}/grants/${grantId}/members`, body: { userId, roles: ['PROJECT_GRANT_OWNER_VIEWER'] } };
  };
  /** P granted (with `reader`) to a new organisation; the grant's id. */
  const projectGrant = async () =>
    (await admin('POST', `/management/v1/projects/${f.project}/grants`, { grantedOrgId: (await insertOrg(t, unique('Granted'))).orgId, roleKeys: ['reader'] })).grantId as string;
  const machine = async () => (await admin('POST', '/management/v1/users/machine', { userName: unique('bot'), name: 'Bot' })).userId as string;
  const orgMember = async () => {
    const userId = await human();
    await admin('POST', '/management/v1/orgs/me/members', { userId, roles: ['ORG_OWNER_VIEWER'] });
    return userId;
  };
  const jwtIdp = (name: string) => ({
    name,
    jwtEndpoint: 'https://portal.example.com/jwt',
    issuer: 'https://portal.example.com',
    keysEndpoint: 'https://portal.example.com/keys',
    headerName: 'x-auth-token',
  });
  const orgIdp = async () => (await admin('POST', '/management/v1/idps/jwt', jwtIdp(unique('idp')))).idpId as string;
  const oidcIdp = (name: string) => ({ name, clientId: 'partner-client', clientSecret: 'partner-secret', issuer: 'https://partner.example.com' });
  const orgOidcIdp = async () => (await admin('POST', '/management/v1/idps/oidc', oidcIdp(unique('idp')))).idpId as string;
  const instanceIdp = async () => (await admin('POST', '/admin/v1/idps/jwt', jwtIdp(unique('idp')))).idpId as string;
  const grant = async (roleKeys = ['reader']) => {
    const userId = await human();
    const { userGrantId } = await admin('POST', `/management/v1/users/${userId}/grants`, { projectId: f.project, roleKeys });
    return { userId, grantId: userGrantId as string };
  };
  /** A confidential OIDC app (auth method BASIC by default) of P. */
  const apiApp = async () => (await admin('POST', `/management/v1/projects/${f.project}/apps/api`, { name: unique('api') })).appId as string;
  /** An API app of P that authenticates with its keys (PRIVATE_KEY_JWT), and the path of one of its keys. */
  const keyApp = async () => (await admin('POST', `/management/v1/projects/${f.project}/apps/api`, { name: unique('keyed'), authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' })).appId as string;
  const appKeyPath = async () => {
    const appId = await keyApp();
    const { id } = await admin('POST', `/management/v1/projects/${f.project}/apps/${appId}/keys`, { type: 'KEY_TYPE_JSON' });
    return `/management/v1/projects/${f.project}/apps/${appId}/keys/${id}`;
  };
  const oidcApp = async () => (await admin('POST', `/management/v1/projects/${f.project}/apps/oidc`, { name: unique('app'), redirectUris: ['https://app.example.com/cb'] })).appId as string;
  /** Each policy kind: its operations' name part, path, and a request body that differs with `i`. */
  const POLICY_KINDS = [
    {
      name: 'PasswordComplexity',
      kind: 'password_complexity',
      path: 'password/complexity',
      body: (i: number) => ({ minLength: 8 + (i % 50), hasUppercase: true, hasLowercase: true, hasNumber: true, hasSymbol: true }),
    },
    { name: 'Lockout', kind: 'lockout', path: 'lockout', body: (i: number) => ({ maxPasswordAttempts: 1 + (i % 500), maxOtpAttempts: 0 }) },
    { name: 'Login', kind: 'login', path: 'login', body: (i: number) => ({ allowUsernamePassword: true, allowExternalIdp: true, defaultRedirectUri: `https://app.example/${i}` }) },
    { name: 'Privacy', kind: 'privacy', path: 'privacy', body: (i: number) => ({ tosLink: `https://example.com/tos/${i}` }) },
    { name: 'Label', kind: 'label', path: 'label', body: (i: number) => ({ primaryColor: `#${(i % 4096).toString(16).padStart(3, '0')}` }) },
    {
      // As ZITADEL: an organisation's own domain policy is an instance administrator's to set.
      name: 'Domain',
      kind: 'domain',
      path: 'domain',
      orgWrite: 'iam.policy.write',
      // Two states that alternate (consecutive updates differ), and body(1) unlike either.
      body: (i: number) => (i === 1 ? { userLoginMustBeDomain: false } : { userLoginMustBeDomain: true, validateOrgDomains: i % 2 === 0, smtpSenderAddressMatchesInstanceDomain: i % 2 === 1 }),
    },
  ] as Array<{ name: string; kind: string; path: string; orgWrite?: string; body: (i: number) => unknown }>;
  const kindOf = (path: string) => POLICY_KINDS.find((k) => k.path === path)!.kind;
  /** Gives the organisation its own policy of this kind (unless it has one), or takes it away. */
  const orgPolicy = async (path: string, body: unknown, orgId: string) => {
    if (await t.store.read.policies.get(orgId, kindOf(path))) return;
    await t.call('POST', `/management/v1/policies/${path}`, { headers: { 'x-service-orgid': orgId }, body });
  };
  const resetOrgPolicy = async (path: string, orgId: string) => {
    if (!(await t.store.read.policies.get(orgId, kindOf(path)))) return;
    await t.call('DELETE', `/management/v1/policies/${path}`, { headers: { 'x-service-orgid': orgId } });
  };
  /** A human of A with the metadata key `k`. */
  const withMetadata = async () => {
    const userId = await human();
    await admin('POST', `/management/v1/users/${userId}/metadata/k`, { value: 'dg==' });
    return userId;
  };
  const smtpSettings = (description: string) => ({ senderAddress: 'noreply@example.com', senderName: 'Matrix', host: `127.0.0.1:${sink.port}`, description });
  const smtpProvider = async () => (await admin('POST', '/admin/v1/smtp', smtpSettings(unique('smtp')))).id as string;
  const activeProvider = async () => {
    const id = await smtpProvider();
    await admin('POST', `/admin/v1/smtp/${id}/_activate`);
    return id;
  };
  /** An organisation holding nothing but itself: what an export of it reads stays small. */
  const emptyOrg = async () => (await insertOrg(t, unique('Export'))).orgId;
  const importJob = async () => (await admin('POST', '/admin/v1/import/jobs', { dataOrgs: { orgs: [] } })).id as string;

  const OPERATIONS: Operation[] = [
    { id: 'GetSupportedLanguages', permission: null, scope: 'instance', write: false, request: async () => ({ method: 'GET', path: '/admin/v1/languages' }) },
    {
      id: 'SetDefaultVerifyEmailMessageText',
      permission: 'iam.policy.write',
      scope: 'instance',
      write: true,
      request: async () => ({ method: 'PUT', path: '/admin/v1/text/message/verifyemail/en', body: { title: unique('t') } }),
    },
    { id: 'GetCustomVerifyEmailMessageText', permission: 'iam.policy.read', scope: 'instance', write: false, request: async () => ({ method: 'GET', path: '/admin/v1/text/message/verifyemail/en' }) },
    {
      id: 'GetDefaultVerifyEmailMessageText',
      permission: 'iam.policy.read',
      scope: 'instance',
      write: false,
      request: async () => ({ method: 'GET', path: '/admin/v1/text/default/message/verifyemail/en' }),
    },
    {
      id: 'ResetCustomVerifyEmailMessageTextToDefault',
      permission: 'iam.policy.delete',
      scope: 'instance',
      write: true,
      request: async () => {
        await admin('PUT', '/admin/v1/text/message/verifyemail/de', { title: unique('t') });
        return { method: 'DELETE', path: '/admin/v1/text/message/verifyemail/de' };
      },
    },
    // The other kinds of message texts (http/routes/message-texts.ts), on the init text.
    {
      id: 'SetDefaultMessageText',
      permission: 'iam.policy.write',
      scope: 'instance',
      write: true,
      request: async () => ({ method: 'PUT', path: '/admin/v1/text/message/init/en', body: { title: unique('t') } }),
    },
    { id: 'GetCustomMessageText', permission: 'iam.policy.read', scope: 'instance', write: false, request: async () => ({ method: 'GET', path: '/admin/v1/text/message/init/en' }) },
    { id: 'GetDefaultMessageText', permission: 'iam.policy.read', scope: 'instance', write: false, request: async () => ({ method: 'GET', path: '/admin/v1/text/default/message/init/en' }) },
    {
      id: 'ResetCustomMessageTextToDefault',
      permission: 'iam.policy.delete',
      scope: 'instance',
      write: true,
      request: async () => {
        await admin('PUT', '/admin/v1/text/message/init/de', { title: unique('t') });
        return { method: 'DELETE', path: '/admin/v1/text/message/init/de' };
      },
    },
    // Preview and test send of texts (domain/texts/preview.ts): the read permission of the level, and its write one to mail an address; neither writes.
    {
      id: 'PreviewDefaultMessageText',
      permission: 'iam.policy.read',
      scope: 'instance',
      write: false,
      request: async () => ({ method: 'POST', path: '/admin/v1/text/message/verifyemail/en/_preview', body: {} }),
    },
    {
      id: 'TestDefaultMessageText',
      permission: 'iam.policy.write',
      scope: 'instance',
      write: false,
      request: async () => ({ method: 'POST', path: '/admin/v1/text/message/init/en/_test', body: { receiverAddress: 'admin@example.com' } }),
    },
    {
      id: 'PreviewCustomMessageText',
      permission: 'policy.read',
      scope: 'org',
      write: false,
      request: async () => ({ method: 'POST', path: '/management/v1/text/message/passwordreset/en/_preview', body: {} }),
    },
    {
      id: 'TestCustomMessageText',
      permission: 'policy.write',
      scope: 'org',
      write: false,
      request: async () => ({ method: 'POST', path: '/management/v1/text/message/verifyemail/en/_test', body: { receiverAddress: 'admin@example.com' } }),
    },
    {
      id: 'SetCustomMessageText',
      permission: 'policy.write',
      scope: 'org',
      write: true,
      request: async () => ({ method: 'PUT', path: '/management/v1/text/message/passwordreset/en', body: { title: unique('t') } }),
    },
    { id: 'GetOrgCustomMessageText', permission: 'policy.read', scope: 'org', write: false, request: async () => ({ method: 'GET', path: '/management/v1/text/message/passwordreset/en' }) },
    { id: 'GetOrgDefaultMessageText', permission: 'policy.read', scope: 'org', write: false, request: async () => ({ method: 'GET', path: '/management/v1/text/default/message/passwordreset/en' }) },
    {
      id: 'ResetOrgCustomMessageTextToDefault',
      permission: 'policy.delete',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => {
        await admin('PUT', '/management/v1/text/message/passwordreset/de', { title: unique('t') });
        return { method: 'DELETE', path: '/management/v1/text/message/passwordreset/de' };
      },
    },
    // Login texts (domain/texts/login-texts.ts).
    {
      id: 'SetCustomLoginText',
      permission: 'iam.policy.write',
      scope: 'instance',
      write: true,
      request: async () => ({ method: 'PUT', path: '/admin/v1/text/login/en', body: { loginText: { title: unique('t') } } }),
    },
    { id: 'GetCustomLoginTexts', permission: 'iam.policy.read', scope: 'instance', write: false, request: async () => ({ method: 'GET', path: '/admin/v1/text/login/en' }) },
    { id: 'GetDefaultLoginTexts', permission: 'iam.policy.read', scope: 'instance', write: false, request: async () => ({ method: 'GET', path: '/admin/v1/text/default/login/en' }) },
    {
      id: 'ResetCustomLoginTextToDefault',
      permission: 'iam.policy.delete',
      scope: 'instance',
      write: true,
      request: async () => {
        await admin('PUT', '/admin/v1/text/login/de', { loginText: { title: unique('t') } });
        return { method: 'DELETE', path: '/admin/v1/text/login/de' };
      },
    },
    {
      id: 'SetOrgCustomLoginText',
      permission: 'policy.write',
      scope: 'org',
      write: true,
      request: async () => ({ method: 'PUT', path: '/management/v1/text/login/en', body: { loginText: { title: unique('t') } } }),
    },
    { id: 'GetOrgCustomLoginTexts', permission: 'policy.read', scope: 'org', write: false, request: async () => ({ method: 'GET', path: '/management/v1/text/login/en' }) },
    { id: 'GetOrgDefaultLoginTexts', permission: 'policy.read', scope: 'org', write: false, request: async () => ({ method: 'GET', path: '/management/v1/text/default/login/en' }) },
    {
      id: 'ResetOrgCustomLoginTextToDefault',
      permission: 'policy.delete',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => {
        await admin('PUT', '/management/v1/text/login/de', { loginText: { title: unique('t') } });
        return { method: 'DELETE', path: '/management/v1/text/login/de' };
      },
    },
    { id: 'ListEvents', permission: 'events.read', scope: 'instance', write: false, request: async () => ({ method: 'POST', path: '/admin/v1/events/_search', body: { limit: 1 } }) },
    { id: 'ListEventTypes', permission: 'events.read', scope: 'instance', write: false, request: async () => ({ method: 'POST', path: '/admin/v1/events/types/_search', body: {} }) },
    { id: 'ListAggregateTypes', permission: 'events.read', scope: 'instance', write: false, request: async () => ({ method: 'POST', path: '/admin/v1/aggregates/types/_search', body: {} }) },
    // The change lists (domain/events/changes.ts): in another organisation's context an object of A has no changes (200, empty), as in ZITADEL.
    { id: 'ListUserChanges', permission: 'user.read', scope: 'org', write: false, request: async () => ({ method: 'POST', path: `/management/v1/users/${await human()}/changes/_search`, body: {} }) },
    {
      id: 'ListOrgChanges',
      permission: 'org.read',
      scope: 'org',
      write: false,
      request: async () => ({ method: 'POST', path: '/management/v1/orgs/me/changes/_search', body: { query: { limit: 5 } } }),
    },
    {
      id: 'ListProjectChanges',
      permission: 'project.read',
      scope: 'project',
      write: false,
      request: async () => ({ method: 'POST', path: `/management/v1/projects/${f.project}/changes/_search`, body: {} }),
    },
    {
      id: 'ListAppChanges',
      permission: 'project.app.read',
      scope: 'project',
      write: false,
      request: async () => ({ method: 'POST', path: `/management/v1/projects/${f.project}/apps/${await oidcApp()}/changes/_search`, body: {} }),
    },
    // Organisation domains (domain/orgs/domains.ts): each call on a new domain of A.
    {
      id: 'AddOrgDomain',
      permission: 'org.write',
      scope: 'org',
      write: true,
      request: async () => ({ method: 'POST', path: '/management/v1/orgs/me/domains', body: { domain: `${unique('d')}.example.com` } }),
    },
    { id: 'ListOrgDomains', permission: 'org.read', scope: 'org', write: false, request: async () => ({ method: 'POST', path: '/management/v1/orgs/me/domains/_search', body: {} }) },
    {
      id: 'RemoveOrgDomain',
      permission: 'org.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => {
        const domain = `${unique('d')}.example.com`;
        await admin('POST', '/management/v1/orgs/me/domains', { domain });
        return { method: 'DELETE', path: `/management/v1/orgs/me/domains/${domain}` };
      },
    },
    {
      id: 'GenerateOrgDomainValidation',
      permission: 'org.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => {
        const domain = `${unique('d')}.example.com`;
        await admin('POST', '/management/v1/orgs/me/domains', { domain });
        return { method: 'POST', path: `/management/v1/orgs/me/domains/${domain}/validation/_generate`, body: { type: 'DOMAIN_VALIDATION_TYPE_HTTP' } };
      },
    },
    {
      id: 'ValidateOrgDomain',
      permission: 'org.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => {
        // The one domain that reaches the loopback server: taken away and added again for each call.
        const domain = '127.0.0.1';
        await t.store.transaction((tx) => tx.orgDomains.remove(f.orgA, domain));
        await admin('POST', '/management/v1/orgs/me/domains', { domain });
        await admin('POST', `/management/v1/orgs/me/domains/${domain}/validation/_generate`, { type: 'DOMAIN_VALIDATION_TYPE_HTTP' });
        return { method: 'POST', path: `/management/v1/orgs/me/domains/${domain}/validation/_validate`, body: {} };
      },
    },
    {
      id: 'SetPrimaryOrgDomain',
      permission: 'org.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => {
        const domain = `${unique('d')}.example.com`;
        await admin('POST', '/management/v1/orgs/me/domains', { domain });
        // As a validation leaves it (the validation itself has its own entry above).
        await t.store.transaction((tx) => tx.orgDomains.update(f.orgA, domain, { isVerified: true }));
        return { method: 'POST', path: `/management/v1/orgs/me/domains/${domain}/_set_primary`, body: {} };
      },
    },
    { id: 'GetMyOrg', permission: 'org.read', scope: 'org', write: false, request: async () => ({ method: 'GET', path: '/management/v1/orgs/me' }) },
    { id: 'AddProject', permission: 'project.create', scope: 'org', write: true, request: async () => ({ method: 'POST', path: '/management/v1/projects', body: { name: unique('p') } }) },
    {
      // Each call flips a setting of P, so every call changes something.
      id: 'UpdateProject',
      permission: 'project.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => {
        const { project } = await admin('GET', `/management/v1/projects/${f.project}`);
        return { method: 'PUT', path: `/management/v1/projects/${f.project}`, body: { name: 'P', projectRoleAssertion: !project.projectRoleAssertion } };
      },
    },
    { id: 'ListProjects', permission: 'project.read', scope: 'org', write: false, request: async () => ({ method: 'POST', path: '/management/v1/projects/_search', body: {} }) },
    { id: 'GetProjectByID', permission: 'project.read', scope: 'project', foreign: 404, write: false, request: async () => ({ method: 'GET', path: `/management/v1/projects/${f.project}` }) },
    {
      id: 'AddProjectRole',
      permission: 'project.role.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'POST', path: `/management/v1/projects/${f.project}/roles`, body: { roleKey: unique('r'), displayName: 'R' } }),
    },
    {
      id: 'BulkAddProjectRoles',
      permission: 'project.role.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'POST', path: `/management/v1/projects/${f.project}/roles/_bulk`, body: { roles: [{ key: unique('r'), displayName: 'R' }] } }),
    },
    {
      id: 'ListProjectRoles',
      permission: 'project.role.read',
      scope: 'project',
      foreign: 404,
      write: false,
      request: async () => ({ method: 'POST', path: `/management/v1/projects/${f.project}/roles/_search`, body: {} }),
    },
    {
      id: 'RemoveProjectRole',
      permission: 'project.role.delete',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => {
        const roleKey = unique('r');
        await admin('POST', `/management/v1/projects/${f.project}/roles`, { roleKey, displayName: 'R' });
        return { method: 'DELETE', path: `/management/v1/projects/${f.project}/roles/${roleKey}` };
      },
    },
    {
      id: 'AddProjectGrant',
      permission: 'project.grant.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'POST', path: `/management/v1/projects/${f.project}/grants`, body: { grantedOrgId: (await insertOrg(t, unique('Granted'))).orgId, roleKeys: ['reader'] } }),
    },
    {
      id: 'ListProjectGrants',
      permission: 'project.grant.read',
      scope: 'project',
      foreign: 404,
      write: false,
      request: async () => ({ method: 'POST', path: `/management/v1/projects/${f.project}/grants/_search`, body: {} }),
    },
    {
      id: 'GetProjectGrantByID',
      permission: 'project.grant.read',
      scope: 'project',
      foreign: 404,
      write: false,
      request: async () => ({ method: 'GET', path: `/management/v1/projects/${f.project}/grants/${await projectGrant()}` }),
    },
    {
      id: 'UpdateProjectGrant',
      permission: 'project.grant.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'PUT', path: `/management/v1/projects/${f.project}/grants/${await projectGrant()}`, body: { roleKeys: ['reader', 'writer'] } }),
    },
    {
      id: 'DeactivateProjectGrant',
      permission: 'project.grant.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'POST', path: `/management/v1/projects/${f.project}/grants/${await projectGrant()}/_deactivate` }),
    },
    {
      id: 'ReactivateProjectGrant',
      permission: 'project.grant.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => {
        const grantId = await projectGrant();
        await admin('POST', `/management/v1/projects/${f.project}/grants/${grantId}/_deactivate`);
        return { method: 'POST', path: `/management/v1/projects/${f.project}/grants/${grantId}/_reactivate` };
      },
    },
    { id: 'ListAllProjectGrants', permission: 'project.grant.read', scope: 'org', write: false, request: async () => ({ method: 'POST', path: '/management/v1/projectgrants/_search', body: {} }) },
    {
      id: 'RemoveProjectGrant',
      permission: 'project.grant.delete',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'DELETE', path: `/management/v1/projects/${f.project}/grants/${await projectGrant()}` }),
    },
    { id: 'AddProjectGrantMember', permission: 'project.grant.member.write', scope: 'project', foreign: 404, write: true, request: async () => ({ ...(await grantWithUser()), method: 'POST' }) },
    {
      id: 'ListProjectGrantMembers',
      permission: 'project.grant.member.read',
      scope: 'project',
      foreign: 404,
      write: false,
      request: async () => ({ method: 'POST', path: `/management/v1/projects/${f.project}/grants/${await projectGrant()}/members/_search`, body: {} }),
    },
    {
      id: 'UpdateProjectGrantMember',
      permission: 'project.grant.member.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => {
        const { path, body } = await grantWithUser();
        await admin('POST', path, body);
        return { method: 'PUT', path: `${path}/${body.userId}`, body: { roles: ['PROJECT_GRANT_OWNER'] } };
      },
    },
    {
      id: 'RemoveProjectGrantMember',
      permission: 'project.grant.member.delete',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => {
        const { path, body } = await grantWithUser();
        await admin('POST', path, body);
        return { method: 'DELETE', path: `${path}/${body.userId}` };
      },
    },
    { id: 'ListGrantedProjects', permission: 'project.read', scope: 'org', write: false, request: async () => ({ method: 'POST', path: '/management/v1/granted_projects/_search', body: {} }) },
    {
      id: 'AddProjectMember',
      permission: 'project.member.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'POST', path: `/management/v1/projects/${f.project}/members`, body: { userId: await human(), roles: ['PROJECT_OWNER_VIEWER'] } }),
    },
    {
      id: 'ListProjectMembers',
      permission: 'project.member.read',
      scope: 'project',
      foreign: 404,
      write: false,
      request: async () => ({ method: 'POST', path: `/management/v1/projects/${f.project}/members/_search`, body: {} }),
    },
    {
      id: 'RemoveProjectMember',
      permission: 'project.member.delete',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => {
        const userId = await human();
        await admin('POST', `/management/v1/projects/${f.project}/members`, { userId, roles: ['PROJECT_OWNER_VIEWER'] });
        return { method: 'DELETE', path: `/management/v1/projects/${f.project}/members/${userId}` };
      },
    },
    // Acting in B, A's project is "not a project of the organisation": a failed precondition.
    {
      id: 'AddUserGrant',
      permission: 'user.grant.write',
      scope: 'project',
      foreign: 400,
      write: true,
      request: async () => ({ method: 'POST', path: `/management/v1/users/${await human()}/grants`, body: { projectId: f.project, roleKeys: ['reader'] } }),
    },
    { id: 'ListUserGrants', permission: 'user.grant.read', scope: 'org', write: false, request: async () => ({ method: 'POST', path: '/management/v1/users/grants/_search', body: {} }) },
    {
      id: 'GetUserGrantByID',
      permission: 'user.grant.read',
      scope: 'project',
      foreign: 404,
      write: false,
      request: async () => {
        const { userId, grantId } = await grant();
        return { method: 'GET', path: `/management/v1/users/${userId}/grants/${grantId}` };
      },
    },
    {
      id: 'UpdateUserGrant',
      permission: 'user.grant.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => {
        const { userId, grantId } = await grant();
        return { method: 'PUT', path: `/management/v1/users/${userId}/grants/${grantId}`, body: { roleKeys: ['writer'] } };
      },
    },
    {
      id: 'DeactivateUserGrant',
      permission: 'user.grant.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => {
        const { userId, grantId } = await grant();
        return { method: 'POST', path: `/management/v1/users/${userId}/grants/${grantId}/_deactivate` };
      },
    },
    {
      id: 'ReactivateUserGrant',
      permission: 'user.grant.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => {
        const { userId, grantId } = await grant();
        await admin('POST', `/management/v1/users/${userId}/grants/${grantId}/_deactivate`);
        return { method: 'POST', path: `/management/v1/users/${userId}/grants/${grantId}/_reactivate` };
      },
    },
    {
      id: 'RemoveUserGrant',
      permission: 'user.grant.delete',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => {
        const { userId, grantId } = await grant();
        return { method: 'DELETE', path: `/management/v1/users/${userId}/grants/${grantId}` };
      },
    },
    {
      id: 'BulkRemoveUserGrant',
      permission: 'user.grant.delete',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'DELETE', path: '/management/v1/user_grants/_bulk', body: { grantId: [(await grant()).grantId, (await grant()).grantId] } }),
    },
    // Organisations, users, tokens and members (another feature).
    { id: 'AddOrg', permission: 'org.create', scope: 'org', write: true, request: async () => ({ method: 'POST', path: '/management/v1/orgs', body: { name: unique('Org') } }) },
    { id: 'ListOrgs', permission: 'iam.read', scope: 'instance', write: false, request: async () => ({ method: 'POST', path: '/admin/v1/orgs/_search', body: {} }) },
    { id: 'GetDefaultOrg', permission: 'iam.read', scope: 'instance', write: false, request: async () => ({ method: 'GET', path: '/admin/v1/orgs/default' }) },
    { id: 'GetOrgByID', permission: 'iam.read', scope: 'instance', write: false, request: async () => ({ method: 'GET', path: `/admin/v1/orgs/${f.orgA}` }) },
    {
      id: 'ImportHumanUser',
      permission: 'user.write',
      scope: 'org',
      write: true,
      request: async () => ({
        method: 'POST',
        path: '/management/v1/users/human/_import',
        body: { userName: unique('h'), profile: { firstName: 'F', lastName: 'L' }, email: { email: `${unique('m')}@example.com` } },
      }),
    },
    {
      id: 'AddHumanUser',
      permission: 'user.write',
      scope: 'org',
      write: true,
      request: async () => ({
        method: 'POST',
        path: '/management/v1/users/human',
        body: { userName: unique('added'), profile: { firstName: 'A', lastName: 'B' }, email: { email: 'added@example.com' } },
      }),
    },
    {
      id: 'UpdateHumanProfile',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'PUT', path: `/management/v1/users/${await human()}/profile`, body: { firstName: 'Changed', lastName: 'Name' } }),
    },
    {
      id: 'UpdateMachine',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'PUT', path: `/management/v1/users/${await machine()}/machine`, body: { name: 'Changed' } }),
    },
    {
      id: 'SendHumanResetPasswordNotification',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'POST', path: `/management/v1/users/${await human()}/password/_reset`, body: {} }),
    },
    {
      id: 'UpdateHumanPhone',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'PUT', path: `/management/v1/users/${await human()}/phone`, body: { phone: '+41 79 123 45 67' } }),
    },
    {
      id: 'RemoveHumanPhone',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => {
        const userId = await human();
        await admin('PUT', `/management/v1/users/${userId}/phone`, { phone: '+41 79 765 43 21' });
        return { method: 'DELETE', path: `/management/v1/users/${userId}/phone` };
      },
    },
    {
      id: 'SetHumanPassword',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'POST', path: `/management/v1/users/${await human()}/password`, body: { password: 'N3w-Passw0rd!' } }),
    },
    {
      id: 'AddMachineUser',
      permission: 'user.write',
      scope: 'org',
      write: true,
      request: async () => ({ method: 'POST', path: '/management/v1/users/machine', body: { userName: unique('m'), name: 'M' } }),
    },
    { id: 'ListUsers', permission: 'user.read', scope: 'org', write: false, request: async () => ({ method: 'POST', path: '/management/v1/users/_search', body: {} }) },
    { id: 'GetUserByID', permission: 'user.read', scope: 'org', foreign: 404, write: false, request: async () => ({ method: 'GET', path: `/management/v1/users/${await human()}` }) },
    { id: 'RemoveUser', permission: 'user.delete', scope: 'org', foreign: 404, write: true, request: async () => ({ method: 'DELETE', path: `/management/v1/users/${await human()}` }) },
    {
      id: 'AddPersonalAccessToken',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'POST', path: `/management/v1/users/${await machine()}/pats`, body: {} }),
    },
    {
      id: 'ListPersonalAccessTokens',
      permission: 'user.read',
      scope: 'org',
      foreign: 404,
      write: false,
      request: async () => ({ method: 'POST', path: `/management/v1/users/${await machine()}/pats/_search`, body: {} }),
    },
    {
      id: 'RemovePersonalAccessToken',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => {
        const userId = await machine();
        const { tokenId } = await admin('POST', `/management/v1/users/${userId}/pats`, {});
        return { method: 'DELETE', path: `/management/v1/users/${userId}/pats/${tokenId}` };
      },
    },
    // Machine keys (domain/users/machine-keys.ts).
    {
      id: 'AddMachineKey',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'POST', path: `/management/v1/users/${await machine()}/keys`, body: { type: 'KEY_TYPE_JSON' } }),
    },
    {
      id: 'ListMachineKeys',
      permission: 'user.read',
      scope: 'org',
      foreign: 404,
      write: false,
      request: async () => ({ method: 'POST', path: `/management/v1/users/${await machine()}/keys/_search`, body: {} }),
    },
    {
      id: 'GetMachineKeyByIDs',
      permission: 'user.read',
      scope: 'org',
      foreign: 404,
      write: false,
      request: async () => {
        const userId = await machine();
        const { keyId } = await admin('POST', `/management/v1/users/${userId}/keys`, { type: 'KEY_TYPE_JSON' });
        return { method: 'GET', path: `/management/v1/users/${userId}/keys/${keyId}` };
      },
    },
    {
      id: 'RemoveMachineKey',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => {
        const userId = await machine();
        const { keyId } = await admin('POST', `/management/v1/users/${userId}/keys`, { type: 'KEY_TYPE_JSON' });
        return { method: 'DELETE', path: `/management/v1/users/${userId}/keys/${keyId}` };
      },
    },
    {
      id: 'ListHumanAuthFactors',
      permission: 'user.read',
      scope: 'org',
      foreign: 404,
      write: false,
      request: async () => ({ method: 'POST', path: `/management/v1/users/${await human()}/auth_factors/_search`, body: {} }),
    },
    {
      id: 'RemoveHumanAuthFactorOTP',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => {
        const userId = await human();
        // As an import with `otpCode` leaves it (the login tests use real ones).
        await t.store.transaction((tx) => tx.logins.addOtpSecret(userId, 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', new Date()));
        return { method: 'DELETE', path: `/management/v1/users/${userId}/auth_factors/otp` };
      },
    },
    {
      id: 'ListHumanLinkedIDPs',
      permission: 'user.read',
      scope: 'org',
      foreign: 404,
      write: false,
      request: async () => ({ method: 'POST', path: `/management/v1/users/${await human()}/idps/_search`, body: {} }),
    },
    {
      id: 'RemoveHumanLinkedIDP',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => {
        const userId = await human();
        const idpId = await orgIdp();
        // A link as a first sign-in through the provider leaves it (the login tests make real ones).
        await t.store.transaction((tx) => tx.idpLinks.insert({ idpId, externalUserId: 'sub', userId, orgId: f.orgA, externalUserName: 'ext', createdAt: new Date() }));
        return { method: 'DELETE', path: `/management/v1/users/${userId}/idps/${idpId}/sub` };
      },
    },
    {
      id: 'AddOrgMember',
      permission: 'org.member.write',
      scope: 'org',
      write: true,
      request: async () => ({ method: 'POST', path: '/management/v1/orgs/me/members', body: { userId: await human(), roles: ['ORG_OWNER_VIEWER'] } }),
    },
    { id: 'ListOrgMembers', permission: 'org.member.read', scope: 'org', write: false, request: async () => ({ method: 'POST', path: '/management/v1/orgs/me/members/_search', body: {} }) },
    {
      id: 'UpdateOrgMember',
      permission: 'org.member.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'PUT', path: `/management/v1/orgs/me/members/${await orgMember()}`, body: { roles: ['ORG_USER_MANAGER'] } }),
    },
    {
      id: 'RemoveOrgMember',
      permission: 'org.member.delete',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'DELETE', path: `/management/v1/orgs/me/members/${await orgMember()}` }),
    },
    {
      id: 'AddIAMMember',
      permission: 'iam.member.write',
      scope: 'instance',
      write: true,
      request: async () => ({ method: 'POST', path: '/admin/v1/members', body: { userId: await human(), roles: ['IAM_OWNER_VIEWER'] } }),
    },
    { id: 'ListIAMMembers', permission: 'iam.member.read', scope: 'instance', write: false, request: async () => ({ method: 'POST', path: '/admin/v1/members/_search', body: {} }) },
    {
      id: 'RemoveIAMMember',
      permission: 'iam.member.delete',
      scope: 'instance',
      write: true,
      request: async () => {
        const userId = await human();
        await admin('POST', '/admin/v1/members', { userId, roles: ['IAM_OWNER_VIEWER'] });
        return { method: 'DELETE', path: `/admin/v1/members/${userId}` };
      },
    },
    // Identity providers (another feature): organisation IDPs of A and instance IDPs.
    { id: 'AddOrgJWTIDP', permission: 'org.idp.write', scope: 'org', write: true, request: async () => ({ method: 'POST', path: '/management/v1/idps/jwt', body: jwtIdp(unique('idp')) }) },
    { id: 'ListOrgIDPs', permission: 'org.idp.read', scope: 'org', write: false, request: async () => ({ method: 'POST', path: '/management/v1/idps/_search', body: {} }) },
    { id: 'GetOrgIDPByID', permission: 'org.idp.read', scope: 'org', foreign: 404, write: false, request: async () => ({ method: 'GET', path: `/management/v1/idps/${await orgIdp()}` }) },
    {
      id: 'UpdateOrgIDP',
      permission: 'org.idp.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'PUT', path: `/management/v1/idps/${await orgIdp()}`, body: { name: unique('renamed') } }),
    },
    { id: 'RemoveOrgIDP', permission: 'org.idp.write', scope: 'org', foreign: 404, write: true, request: async () => ({ method: 'DELETE', path: `/management/v1/idps/${await orgIdp()}` }) },
    {
      id: 'UpdateOrgIDPJWTConfig',
      permission: 'org.idp.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({
        method: 'PUT',
        path: `/management/v1/idps/${await orgIdp()}/jwt_config`,
        body: { jwtEndpoint: 'https://other.example.com/jwt', issuer: unique('iss'), keysEndpoint: 'https://other.example.com/keys', headerName: 'x-other' },
      }),
    },
    { id: 'AddOrgOIDCIDP', permission: 'org.idp.write', scope: 'org', write: true, request: async () => ({ method: 'POST', path: '/management/v1/idps/oidc', body: oidcIdp(unique('idp')) }) },
    {
      id: 'UpdateOrgIDPOIDCConfig',
      permission: 'org.idp.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'PUT', path: `/management/v1/idps/${await orgOidcIdp()}/oidc_config`, body: { clientId: unique('client'), issuer: 'https://partner.example.com' } }),
    },
    { id: 'AddOIDCIDP', permission: 'iam.idp.write', scope: 'instance', write: true, request: async () => ({ method: 'POST', path: '/admin/v1/idps/oidc', body: oidcIdp(unique('idp')) }) },
    {
      id: 'DeactivateOrgIDP',
      permission: 'org.idp.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'POST', path: `/management/v1/idps/${await orgIdp()}/_deactivate` }),
    },
    {
      id: 'ReactivateOrgIDP',
      permission: 'org.idp.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => {
        const idpId = await orgIdp();
        await admin('POST', `/management/v1/idps/${idpId}/_deactivate`);
        return { method: 'POST', path: `/management/v1/idps/${idpId}/_reactivate` };
      },
    },
    { id: 'AddJWTIDP', permission: 'iam.idp.write', scope: 'instance', write: true, request: async () => ({ method: 'POST', path: '/admin/v1/idps/jwt', body: jwtIdp(unique('idp')) }) },
    { id: 'ListIDPs', permission: 'iam.idp.read', scope: 'instance', write: false, request: async () => ({ method: 'POST', path: '/admin/v1/idps/_search', body: {} }) },
    { id: 'GetIDPByID', permission: 'iam.idp.read', scope: 'instance', write: false, request: async () => ({ method: 'GET', path: `/admin/v1/idps/${await instanceIdp()}` }) },
    { id: 'RemoveIDP', permission: 'iam.idp.write', scope: 'instance', write: true, request: async () => ({ method: 'DELETE', path: `/admin/v1/idps/${await instanceIdp()}` }) },
    // OIDC applications of P (domain/apps): project-scoped like the project itself.
    {
      id: 'AddOIDCApp',
      permission: 'project.app.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'POST', path: `/management/v1/projects/${f.project}/apps/oidc`, body: { name: unique('app'), redirectUris: ['https://app.example.com/cb'] } }),
    },
    {
      id: 'ListApps',
      permission: 'project.app.read',
      scope: 'project',
      foreign: 404,
      write: false,
      request: async () => ({ method: 'POST', path: `/management/v1/projects/${f.project}/apps/_search`, body: {} }),
    },
    {
      id: 'GetAppByID',
      permission: 'project.app.read',
      scope: 'project',
      foreign: 404,
      write: false,
      request: async () => ({ method: 'GET', path: `/management/v1/projects/${f.project}/apps/${await oidcApp()}` }),
    },
    {
      id: 'UpdateApp',
      permission: 'project.app.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'PUT', path: `/management/v1/projects/${f.project}/apps/${await oidcApp()}`, body: { name: unique('renamed') } }),
    },
    {
      id: 'UpdateOIDCAppConfig',
      permission: 'project.app.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'PUT', path: `/management/v1/projects/${f.project}/apps/${await oidcApp()}/oidc_config`, body: { redirectUris: ['https://app.example.com/other'] } }),
    },
    {
      id: 'RegenerateOIDCClientSecret',
      permission: 'project.app.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'POST', path: `/management/v1/projects/${f.project}/apps/${await oidcApp()}/oidc_config/_generate_client_secret` }),
    },
    {
      id: 'AddAPIApp',
      permission: 'project.app.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'POST', path: `/management/v1/projects/${f.project}/apps/api`, body: { name: unique('api') } }),
    },
    {
      id: 'RegenerateAPIClientSecret',
      permission: 'project.app.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'POST', path: `/management/v1/projects/${f.project}/apps/${await apiApp()}/api_config/_generate_client_secret` }),
    },
    {
      id: 'UpdateAPIAppConfig',
      permission: 'project.app.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'PUT', path: `/management/v1/projects/${f.project}/apps/${await apiApp()}/api_config`, body: { authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' } }),
    },
    // Application keys (domain/apps/app-keys.ts).
    {
      id: 'AddAppKey',
      permission: 'project.app.write',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'POST', path: `/management/v1/projects/${f.project}/apps/${await keyApp()}/keys`, body: { type: 'KEY_TYPE_JSON' } }),
    },
    {
      id: 'ListAppKeys',
      permission: 'project.app.read',
      scope: 'project',
      foreign: 404,
      write: false,
      request: async () => ({ method: 'POST', path: `/management/v1/projects/${f.project}/apps/${await keyApp()}/keys/_search`, body: {} }),
    },
    { id: 'GetAppKey', permission: 'project.app.read', scope: 'project', foreign: 404, write: false, request: async () => ({ method: 'GET', path: await appKeyPath() }) },
    { id: 'RemoveAppKey', permission: 'project.app.write', scope: 'project', foreign: 404, write: true, request: async () => ({ method: 'DELETE', path: await appKeyPath() }) },
    {
      id: 'RemoveApp',
      permission: 'project.app.delete',
      visibleWith: 'project.app.read',
      scope: 'project',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'DELETE', path: `/management/v1/projects/${f.project}/apps/${await oidcApp()}` }),
    },
    // Client secrets of machine users (domain/users/machine-secret.ts).
    {
      id: 'GenerateMachineSecret',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'PUT', path: `/management/v1/users/${await machine()}/secret` }),
    },
    {
      id: 'RemoveMachineSecret',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => {
        const userId = await machine();
        await admin('PUT', `/management/v1/users/${userId}/secret`);
        return { method: 'DELETE', path: `/management/v1/users/${userId}/secret` };
      },
    },
    // Policies (domain/policies/): iam.policy.* for the instance's, policy.* for an organisation's; the same seven operations per kind.
    ...POLICY_KINDS.flatMap(({ name, path, body, orgWrite }) => [
      { id: `Get${name}Policy`, permission: 'iam.policy.read', scope: 'instance' as const, write: false, request: async () => ({ method: 'GET', path: `/admin/v1/policies/${path}` }) },
      {
        id: `Update${name}Policy`,
        permission: 'iam.policy.write',
        scope: 'instance' as const,
        write: true,
        request: async () => ({ method: 'PUT', path: `/admin/v1/policies/${path}`, body: body(++n) }),
      },
      { id: `GetOrg${name}Policy`, permission: 'policy.read', scope: 'org' as const, write: false, request: async () => ({ method: 'GET', path: `/management/v1/policies/${path}` }) },
      { id: `GetDefault${name}Policy`, permission: 'policy.read', scope: 'org' as const, write: false, request: async () => ({ method: 'GET', path: `/management/v1/policies/default/${path}` }) },
      {
        // Acting in B, which has a policy of its own already (prepared once): 409.
        id: `AddCustom${name}Policy`,
        permission: orgWrite ?? 'policy.write',
        scope: 'org' as const,
        foreign: 409,
        write: true,
        request: async () => {
          await resetOrgPolicy(path, f.orgA);
          await orgPolicy(path, body(1), f.orgB);
          return { method: 'POST', path: `/management/v1/policies/${path}`, body: body(2) };
        },
      },
      {
        id: `UpdateCustom${name}Policy`,
        permission: orgWrite ?? 'policy.write',
        scope: 'org' as const,
        foreign: 404,
        write: true,
        request: async () => {
          await resetOrgPolicy(path, f.orgB);
          await orgPolicy(path, body(1), f.orgA);
          return { method: 'PUT', path: `/management/v1/policies/${path}`, body: body(10 + (++n % 40)) };
        },
      },
      {
        id: `Reset${name}PolicyToDefault`,
        permission: orgWrite ?? 'policy.delete',
        scope: 'org' as const,
        foreign: 404,
        write: true,
        request: async () => {
          await resetOrgPolicy(path, f.orgB);
          await orgPolicy(path, body(1), f.orgA);
          return { method: 'DELETE', path: `/management/v1/policies/${path}` };
        },
      },
    ]),
    // A user's state by hand (domain/users/state.ts).
    { id: 'DeactivateUser', permission: 'user.write', scope: 'org', foreign: 404, write: true, request: async () => ({ method: 'POST', path: `/management/v1/users/${await human()}/_deactivate` }) },
    { id: 'LockUser', permission: 'user.write', scope: 'org', foreign: 404, write: true, request: async () => ({ method: 'POST', path: `/management/v1/users/${await human()}/_lock` }) },
    {
      id: 'ReactivateUser',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => {
        const userId = await human();
        await admin('POST', `/management/v1/users/${userId}/_deactivate`);
        return { method: 'POST', path: `/management/v1/users/${userId}/_reactivate` };
      },
    },
    {
      id: 'UnlockUser',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => {
        const userId = await human();
        await admin('POST', `/management/v1/users/${userId}/_lock`);
        return { method: 'POST', path: `/management/v1/users/${userId}/_unlock` };
      },
    },
    // A user's metadata (domain/users/metadata.ts).
    {
      id: 'SetUserMetadata',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'POST', path: `/management/v1/users/${await human()}/metadata/k`, body: { value: 'dg==' } }),
    },
    {
      id: 'BulkSetUserMetadata',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'POST', path: `/management/v1/users/${await human()}/metadata/_bulk`, body: { metadata: [{ key: 'k', value: 'dg==' }] } }),
    },
    {
      id: 'GetUserMetadata',
      permission: 'user.read',
      scope: 'org',
      foreign: 404,
      write: false,
      request: async () => ({ method: 'GET', path: `/management/v1/users/${await withMetadata()}/metadata/k` }),
    },
    {
      id: 'ListUserMetadata',
      permission: 'user.read',
      scope: 'org',
      foreign: 404,
      write: false,
      request: async () => ({ method: 'POST', path: `/management/v1/users/${await withMetadata()}/metadata/_search`, body: {} }),
    },
    {
      id: 'RemoveUserMetadata',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'DELETE', path: `/management/v1/users/${await withMetadata()}/metadata/k` }),
    },
    {
      id: 'BulkRemoveUserMetadata',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'DELETE', path: `/management/v1/users/${await withMetadata()}/metadata/_bulk`, body: { keys: ['k'] } }),
    },
    // SMTP providers and the outbox (domain/notifications): instance-wide, iam.read / iam.write as ZITADEL.
    {
      id: 'GetSMTPConfig',
      permission: 'iam.read',
      scope: 'instance',
      write: false,
      request: async () => {
        await activeProvider();
        return { method: 'GET', path: '/admin/v1/smtp' };
      },
    },
    { id: 'AddSMTPConfig', permission: 'iam.write', scope: 'instance', write: true, request: async () => ({ method: 'POST', path: '/admin/v1/smtp', body: smtpSettings(unique('smtp')) }) },
    { id: 'ListSMTPConfigs', permission: 'iam.read', scope: 'instance', write: false, request: async () => ({ method: 'POST', path: '/admin/v1/smtp/_search', body: {} }) },
    {
      id: 'TestSMTPConfig',
      permission: 'iam.write',
      scope: 'instance',
      write: false,
      request: async () => ({
        method: 'POST',
        path: '/admin/v1/smtp/_test',
        body: { senderAddress: 'noreply@example.com', senderName: 'Matrix', host: `127.0.0.1:${sink.port}`, receiverAddress: 'admin@example.com' },
      }),
    },
    { id: 'GetSMTPConfigById', permission: 'iam.read', scope: 'instance', write: false, request: async () => ({ method: 'GET', path: `/admin/v1/smtp/${await smtpProvider()}` }) },
    {
      id: 'UpdateSMTPConfig',
      permission: 'iam.write',
      scope: 'instance',
      write: true,
      request: async () => ({ method: 'PUT', path: `/admin/v1/smtp/${await smtpProvider()}`, body: smtpSettings(unique('changed')) }),
    },
    { id: 'RemoveSMTPConfig', permission: 'iam.write', scope: 'instance', write: true, request: async () => ({ method: 'DELETE', path: `/admin/v1/smtp/${await smtpProvider()}` }) },
    {
      id: 'UpdateSMTPConfigPassword',
      permission: 'iam.write',
      scope: 'instance',
      write: true,
      request: async () => ({ method: 'PUT', path: `/admin/v1/smtp/${await smtpProvider()}/password`, body: { password: 'another' } }),
    },
    { id: 'ActivateSMTPConfig', permission: 'iam.write', scope: 'instance', write: true, request: async () => ({ method: 'POST', path: `/admin/v1/smtp/${await smtpProvider()}/_activate` }) },
    { id: 'DeactivateSMTPConfig', permission: 'iam.write', scope: 'instance', write: true, request: async () => ({ method: 'POST', path: `/admin/v1/smtp/${await activeProvider()}/_deactivate` }) },
    {
      id: 'TestSMTPConfigById',
      permission: 'iam.write',
      scope: 'instance',
      write: false,
      request: async () => ({ method: 'POST', path: `/admin/v1/smtp/${await smtpProvider()}/_test`, body: { receiverAddress: 'admin@example.com' } }),
    },
    { id: 'ListNotifications', permission: 'iam.read', scope: 'instance', write: false, request: async () => ({ method: 'POST', path: '/admin/v1/notifications/_search', body: {} }) },
    // A user's email (domain/users/email.ts).
    {
      id: 'UpdateHumanEmail',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'PUT', path: `/management/v1/users/${await human()}/email`, body: { email: `${unique('new')}@example.com` } }),
    },
    {
      id: 'ResendHumanEmailVerification',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => ({ method: 'POST', path: `/management/v1/users/${await human()}/email/_resend_verification` }),
    },
    {
      id: 'VerifyHumanEmail',
      permission: 'user.write',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => {
        const userId = await human();
        // The code a verification mail would carry (the mail tests send real ones).
        const { code } = await t.store.transaction((tx) => issueCode(tx, userId, 'email_verification', `${userId}@example.com`));
        await t.store.transaction(async (tx) => {
          const row = (await tx.users.get(userId))!;
          await tx.users.change(userId, { data: { ...row.data, email: { email: `${userId}@example.com` } } }, row.sequence, row.changedAt);
        });
        return { method: 'POST', path: `/management/v1/users/${userId}/email/_verify`, body: { verificationCode: code } };
      },
    },
    // The organisation's verify-email texts (management twins of 4.1): policy.* as ZITADEL.
    {
      id: 'SetCustomVerifyEmailMessageText',
      permission: 'policy.write',
      scope: 'org',
      write: true,
      request: async () => ({ method: 'PUT', path: '/management/v1/text/message/verifyemail/en', body: { title: unique('t') } }),
    },
    { id: 'GetOrgCustomVerifyEmailMessageText', permission: 'policy.read', scope: 'org', write: false, request: async () => ({ method: 'GET', path: '/management/v1/text/message/verifyemail/en' }) },
    {
      id: 'GetOrgDefaultVerifyEmailMessageText',
      permission: 'policy.read',
      scope: 'org',
      write: false,
      request: async () => ({ method: 'GET', path: '/management/v1/text/default/message/verifyemail/en' }),
    },
    {
      id: 'ResetOrgCustomVerifyEmailMessageTextToDefault',
      permission: 'policy.delete',
      scope: 'org',
      foreign: 404,
      write: true,
      request: async () => {
        await admin('PUT', '/management/v1/text/message/verifyemail/de', { title: unique('t') });
        return { method: 'DELETE', path: '/management/v1/text/message/verifyemail/de' };
      },
    },
    // Export and import (domain/transfer): instance-wide.
    {
      id: 'ExportData',
      permission: 'iam.read',
      scope: 'instance',
      write: false,
      request: async () => ({ method: 'POST', path: '/admin/v1/export', body: { orgIds: [await emptyOrg()], responseOutput: true } }),
    },
    // Import jobs (domain/transfer/import/jobs.ts): queued, never run here (no worker).
    { id: 'StartImportJob', permission: 'iam.write', scope: 'instance', write: true, request: async () => ({ method: 'POST', path: '/admin/v1/import/jobs', body: { dataOrgs: { orgs: [] } } }) },
    { id: 'ListImportJobs', permission: 'iam.write', scope: 'instance', write: false, request: async () => ({ method: 'POST', path: '/admin/v1/import/jobs/_search', body: {} }) },
    { id: 'GetImportJob', permission: 'iam.write', scope: 'instance', write: false, request: async () => ({ method: 'GET', path: `/admin/v1/import/jobs/${await importJob()}` }) },
    { id: 'CancelImportJob', permission: 'iam.write', scope: 'instance', write: true, request: async () => ({ method: 'POST', path: `/admin/v1/import/jobs/${await importJob()}/_cancel` }) },
    {
      id: 'ImportData',
      permission: 'iam.write',
      scope: 'instance',
      write: true,
      request: async () => ({ method: 'POST', path: '/admin/v1/import', body: { dataOrgs: { orgs: [{ orgId: unique('imported'), org: { name: unique('Imported') } }] } } }),
    },
  ];

  const CALLERS: { variant: Variant; role: string }[] = [
    ...INSTANCE_ROLES.map((role) => ({ variant: 'instance' as const, role })),
    ...ORG_ROLES.flatMap((role) => (['orgOwn', 'orgOtherHeader', 'orgOtherContext'] as const).map((variant) => ({ variant, role }))),
    ...PROJECT_ROLES.flatMap((role) => (['projectOwn', 'projectOther'] as const).map((variant) => ({ variant, role }))),
  ];

  /** The outcome the role table implies. */
  function expected(op: Operation, variant: Variant, role: string): number {
    const held = op.permission === null || (variant !== 'orgOtherHeader' && ROLE_PERMISSIONS[role].includes(op.permission));
    if (!held) {
      const sees = variant === 'orgOtherContext' && op.visibleWith !== undefined && ROLE_PERMISSIONS[role].includes(op.visibleWith);
      return sees ? op.foreign! : 403;
    }
    if (variant === 'projectOther' && op.scope === 'project') return 403;
    if (variant === 'orgOtherContext' && op.foreign !== undefined) return op.foreign;
    return 200;
  }

  async function caller(variant: Variant, role: string): Promise<{ userId: string; token: string; headers: Record<string, string> }> {
    switch (variant) {
      case 'instance':
        return { ...(await insertMachineUserWithToken(t, { orgId: f.orgA, instanceRoles: [role] })), headers: {} };
      case 'orgOwn':
        return { ...(await insertMachineUserWithToken(t, { orgId: f.orgA, orgRoles: [role] })), headers: {} };
      case 'orgOtherHeader':
        return { ...(await insertMachineUserWithToken(t, { orgId: f.orgB, orgRoles: [role] })), headers: inA() };
      case 'orgOtherContext':
        return { ...(await insertMachineUserWithToken(t, { orgId: f.orgB, orgRoles: [role] })), headers: {} };
      case 'projectOwn':
        return { ...(await insertMachineUserWithToken(t, { orgId: f.orgA, projectRoles: [{ projectId: f.project, roles: [role] }] })), headers: {} };
      case 'projectOther':
        return { ...(await insertMachineUserWithToken(t, { orgId: f.orgA, projectRoles: [{ projectId: f.otherProject, roles: [role] }] })), headers: {} };
    }
  }

  let sink: SmtpSink;
  afterAll(() => sink?.close());
  // Answers every domain challenge with its token (the domain 127.0.0.1 reaches it).
  const challenges = createServer((req, res) => res.end(/^\/\.well-known\/zitadel-challenge\/(.+)\.txt$/.exec(req.url ?? '')?.[1] ?? ''));
  afterAll(() => new Promise((r) => challenges.close(r)));
  beforeAll(async () => {
    sink = await startSmtpSink();
    challenges.listen(0, '127.0.0.1');
    await once(challenges, 'listening');
    // A mail-drop folder: test sends of texts have a transport whether or not an SMTP provider is active then.
    t = await createTestInstance(dialect, { domainChecks: { scheme: 'http', port: (challenges.address() as AddressInfo).port }, mailDropDir: tempDir('matrix-mail-') });
    const orgA = (await insertOrg(t, 'Matrix A')).orgId;
    const orgB = (await insertOrg(t, 'Matrix B')).orgId;
    f = { orgA, orgB, project: '', otherProject: '' };
    f.project = (await admin('POST', '/management/v1/projects', { name: 'P' })).id;
    f.otherProject = (await admin('POST', '/management/v1/projects', { name: 'P2' })).id;
    await admin('POST', `/management/v1/projects/${f.project}/roles/_bulk`, {
      roles: [
        { key: 'reader', displayName: 'Reader' },
        { key: 'writer', displayName: 'Writer' },
      ],
    });
  });
  afterAll(() => t.close());

  const byId = new Map(OPERATIONS.map((op) => [op.id, op]));

  /**
   * Operations that remove the matrix's own fixtures (the callers' organisation, its project) when a
   * holder calls them: their permissions are checked role by role in org-project-removal.test.ts.
   */
  const REMOVES_FIXTURES: Record<string, string> = {
    RemoveOrg: "removes the callers' organisation",
    RemoveProject: 'removes the project the project roles are held on',
  };

  it('has an entry for every operation of the spec, and none for operations it lacks', () => {
    expect(SPEC_OPERATIONS.filter((s) => !byId.has(s.id) && !(s.id in REMOVES_FIXTURES)).map((s) => `${s.method} ${s.template} (${s.id})`)).toEqual([]);
    const specIds = new Set(SPEC_OPERATIONS.map((s) => s.id));
    expect(OPERATIONS.filter((op) => !specIds.has(op.id)).map((op) => op.id)).toEqual([]);
  });

  describe.each(SPEC_OPERATIONS.filter((s) => !(s.id in REMOVES_FIXTURES)).map((s) => [s.id, s] as const))('%s', (id, spec) => {
    it('answers every default role as the role table says', async () => {
      const op = byId.get(id);
      expect(op, `no matrix entry for ${spec.method} ${spec.template}`).toBeDefined();
      const mismatches: string[] = [];
      for (const { variant, role } of CALLERS) {
        const who = await caller(variant, role);
        const { method, path, body } = await op!.request(f);
        // The entry must exercise this very operation, not a neighbour on a similar path.
        expect(spec.method === method && spec.pattern.test(path), `${id} must call ${spec.method} ${spec.template}, not ${method} ${path}`).toBe(true);
        const res = await t.call(method, path, { token: who.token, headers: who.headers, body });
        // Always read the body: an export streams from the store until it is consumed.
        const text = await res.text();
        const want = expected(op!, variant, role);
        const got = res.status;
        if (got !== want) mismatches.push(`${role} (${variant}): expected ${want}, got ${got} ${text}`);
        else if (got === 200 && op!.write) {
          const { events } = await t.store.read.events.search({ creator: who.userId, limit: 10, offset: 0, asc: false });
          if (events.length === 0) mismatches.push(`${role} (${variant}): the write left no event with the caller as editor`);
        }
      }
      expect(mismatches).toEqual([]);
    });
  });
});

/**
 * Authority over the target user (domain/users/guard.ts): every operation that changes an existing
 * user — its credentials, how it is recovered or reached, its state, its profile and metadata (which
 * reach tokens), its removal — needs more than `user.write`: the right to grant every membership
 * the target holds. Holding `user.write` in the organisation (ORG_USER_MANAGER, ORG_OWNER), a caller
 * gets 403 against a user with more rights than it may grant, with nothing written (no event, no
 * mail, no code attempt), and still 200 against a plain user. So do the operations that change many
 * users at once (issue 47): removing their organisation, changing the identity provider they sign in
 * with, an import's OVERWRITE. Every write of the API is classified here — a change of a user, a
 * cascade over users, or none, with the reason — so a new write fails here until it is.
 */
describeEachStore('authorization matrix: authority over the target user', (dialect) => {
  let t: TestInstance;
  let orgA: string;
  let project: string;
  let idp: string;
  let n = 0;
  const inA = () => ({ 'x-service-orgid': orgA });
  async function admin(method: string, path: string, body?: unknown) {
    const res = await t.call(method, path, { headers: inA(), body });
    expect(res.status, `${method} ${path}: ${await res.clone().text()}`).toBe(200);
    return res.json();
  }

  type Kind = 'human' | 'machine';
  interface GuardedOperation {
    id: string;
    user: Kind;
    /** Prepares the target (as the administrator) and returns the request. */
    request: (userId: string) => Promise<{ method: string; path: string; body?: unknown }>;
  }
  const u = (userId: string) => `/management/v1/users/${userId}`;
  const GUARDED_OPERATIONS: GuardedOperation[] = [
    // The takeover of issue 33: the reset mail goes wherever the email points.
    { id: 'UpdateHumanEmail', user: 'human', request: async (id) => ({ method: 'PUT', path: `${u(id)}/email`, body: { email: `attacker-${++n}@evil.example`, isEmailVerified: true } }) },
    { id: 'ResendHumanEmailVerification', user: 'human', request: async (id) => ({ method: 'POST', path: `${u(id)}/email/_resend_verification` }) },
    {
      id: 'VerifyHumanEmail',
      user: 'human',
      request: async (id) => {
        const email = ((await t.store.read.users.get(id))!.data as { email: { email: string } }).email.email;
        const { code } = await t.store.transaction((tx) => issueCode(tx, id, 'email_verification', email));
        return { method: 'POST', path: `${u(id)}/email/_verify`, body: { verificationCode: code } };
      },
    },
    { id: 'UpdateHumanPhone', user: 'human', request: async (id) => ({ method: 'PUT', path: `${u(id)}/phone`, body: { phone: '+41 79 666 66 66', isPhoneVerified: true } }) },
    {
      id: 'RemoveHumanPhone',
      user: 'human',
      request: async (id) => {
        await admin('PUT', `${u(id)}/phone`, { phone: '+41 79 123 45 67' });
        return { method: 'DELETE', path: `${u(id)}/phone` };
      },
    },
    { id: 'SetHumanPassword', user: 'human', request: async (id) => ({ method: 'POST', path: `${u(id)}/password`, body: { password: 'N3w-Passw0rd!' } }) },
    { id: 'SendHumanResetPasswordNotification', user: 'human', request: async (id) => ({ method: 'POST', path: `${u(id)}/password/_reset`, body: {} }) },
    {
      id: 'RemoveHumanAuthFactorOTP',
      user: 'human',
      request: async (id) => {
        await t.store.transaction((tx) => tx.logins.addOtpSecret(id, 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', new Date()));
        return { method: 'DELETE', path: `${u(id)}/auth_factors/otp` };
      },
    },
    {
      id: 'RemoveHumanLinkedIDP',
      user: 'human',
      request: async (id) => {
        await t.store.transaction((tx) => tx.idpLinks.insert({ idpId: idp, externalUserId: `sub-${id}`, userId: id, orgId: orgA, externalUserName: 'ext', createdAt: new Date() }));
        return { method: 'DELETE', path: `${u(id)}/idps/${idp}/sub-${id}` };
      },
    },
    { id: 'UpdateMachine', user: 'machine', request: async (id) => ({ method: 'PUT', path: `${u(id)}/machine`, body: { name: 'Changed', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' } }) },
    { id: 'AddPersonalAccessToken', user: 'machine', request: async (id) => ({ method: 'POST', path: `${u(id)}/pats`, body: {} }) },
    {
      id: 'RemovePersonalAccessToken',
      user: 'machine',
      request: async (id) => ({ method: 'DELETE', path: `${u(id)}/pats/${(await admin('POST', `${u(id)}/pats`, {})).tokenId}` }),
    },
    { id: 'AddMachineKey', user: 'machine', request: async (id) => ({ method: 'POST', path: `${u(id)}/keys`, body: { type: 'KEY_TYPE_JSON' } }) },
    {
      id: 'RemoveMachineKey',
      user: 'machine',
      request: async (id) => ({ method: 'DELETE', path: `${u(id)}/keys/${(await admin('POST', `${u(id)}/keys`, { type: 'KEY_TYPE_JSON' })).keyId}` }),
    },
    { id: 'GenerateMachineSecret', user: 'machine', request: async (id) => ({ method: 'PUT', path: `${u(id)}/secret` }) },
    {
      id: 'RemoveMachineSecret',
      user: 'machine',
      request: async (id) => {
        await admin('PUT', `${u(id)}/secret`);
        return { method: 'DELETE', path: `${u(id)}/secret` };
      },
    },
    { id: 'DeactivateUser', user: 'human', request: async (id) => ({ method: 'POST', path: `${u(id)}/_deactivate` }) },
    {
      id: 'ReactivateUser',
      user: 'human',
      request: async (id) => {
        await admin('POST', `${u(id)}/_deactivate`);
        return { method: 'POST', path: `${u(id)}/_reactivate` };
      },
    },
    { id: 'LockUser', user: 'human', request: async (id) => ({ method: 'POST', path: `${u(id)}/_lock` }) },
    {
      id: 'UnlockUser',
      user: 'human',
      request: async (id) => {
        await admin('POST', `${u(id)}/_lock`);
        return { method: 'POST', path: `${u(id)}/_unlock` };
      },
    },
    { id: 'RemoveUser', user: 'human', request: async (id) => ({ method: 'DELETE', path: u(id) }) },
    // Who the user is and what applications learn of it (issue 47): the profile and the metadata reach tokens.
    { id: 'UpdateHumanProfile', user: 'human', request: async (id) => ({ method: 'PUT', path: `${u(id)}/profile`, body: { firstName: 'Mallory', lastName: `Changed ${++n}` } }) },
    { id: 'SetUserMetadata', user: 'human', request: async (id) => ({ method: 'POST', path: `${u(id)}/metadata/role`, body: { value: Buffer.from('admin').toString('base64') } }) },
    {
      id: 'BulkSetUserMetadata',
      user: 'machine',
      request: async (id) => ({
        method: 'POST',
        path: `${u(id)}/metadata/_bulk`,
        body: {
          metadata: [
            { key: 'role', value: 'YWRtaW4=' },
            { key: 'tenant', value: 'ZXZpbA==' },
          ],
        },
      }),
    },
    {
      id: 'RemoveUserMetadata',
      user: 'human',
      request: async (id) => {
        await admin('POST', `${u(id)}/metadata/role`, { value: 'dg==' });
        return { method: 'DELETE', path: `${u(id)}/metadata/role` };
      },
    },
    {
      id: 'BulkRemoveUserMetadata',
      user: 'machine',
      request: async (id) => {
        await admin('POST', `${u(id)}/metadata/_bulk`, {
          metadata: [
            { key: 'a', value: 'dg==' },
            { key: 'b', value: 'dg==' },
          ],
        });
        return { method: 'DELETE', path: `${u(id)}/metadata/_bulk`, body: { keys: ['a', 'b'] } };
      },
    },
  ];
  /**
   * Writes that change many existing users at once, each with the test that holds it to the rule:
   * the caller needs authority over every one of them.
   */
  const CASCADES: Record<string, string> = {
    RemoveOrg: 'removes every user of the organisation (below; org-removal.test.ts)',
    UpdateOrgIDP: 'how the users linked to the provider sign in (below)',
    UpdateOrgIDPJWTConfig: 'the keys that sign the linked users in (below)',
    UpdateOrgIDPOIDCConfig: 'the issuer that signs the linked users in (below)',
    DeactivateOrgIDP: "disables the linked users' sign-in through it (below)",
    ReactivateOrgIDP: 'enables sign-in through it again (below)',
    RemoveOrgIDP: "removes the linked users' links (below)",
    RemoveIDP: 'an instance provider: only IAM_OWNER (iam.idp.write), who may grant every role; the same check (idps/commands.ts)',
    ImportData: 'OVERWRITE of existing users, and metadata, links and keys given to them (below)',
    StartImportJob: 'the same import, run by a worker as its creator (below: ImportData)',
  };
  /** Writes whose path names a user but that change none of it, and why. */
  const NOT_CHANGES_OF_THE_USER: Record<string, string> = {
    AddUserGrant: "roles on the granting organisation's own project: it may give and take back what is its own (RemoveProject takes them all anyway)",
    UpdateUserGrant: "user grants: the granting organisation's roles",
    RemoveUserGrant: "user grants: the granting organisation's roles",
    DeactivateUserGrant: "user grants: the granting organisation's roles",
    ReactivateUserGrant: "user grants: the granting organisation's roles",
    BulkRemoveUserGrant: "user grants: the granting organisation's roles",
    AddHumanUser: 'creates a user',
    ImportHumanUser: 'creates a user',
    AddMachineUser: 'creates a user',
  };
  /** Every other write, by what it writes: none of them changes an existing user. */
  const NOT_ON_USERS: [RegExp, string][] = [
    [/^(PUT|DELETE|POST) \/(admin|management)\/v1\/text\//, 'texts of mails and login pages'],
    [/^(PUT|DELETE|POST) \/(admin|management)\/v1\/policies\//, 'policies: the same for every user they apply to'],
    [/^(PUT|DELETE|POST) \/admin\/v1\/smtp/, 'mail delivery'],
    [/^(PUT|DELETE|POST) \/management\/v1\/projects(\/|$)/, "projects, their roles, applications, keys and grants: the organisation's own; a membership needs the right to grant it (*.member.write)"],
    [/^(POST|DELETE) \/management\/v1\/orgs\/me\/domains/, "the organisation's domains"],
    [/^(POST|PUT|DELETE) \/(management\/v1\/orgs\/me|admin\/v1)\/members/, 'memberships: giving or taking a role needs the right to grant it (*.member.write)'],
    [/^POST \/management\/v1\/orgs$/, 'a new organisation'],
    [/^POST \/(management|admin)\/v1\/idps\/(jwt|oidc)$/, 'a new identity provider: nobody is linked to it yet'],
    [/^POST \/admin\/v1\/export$/, 'reads'],
    [/^POST \/admin\/v1\/import\/jobs\/\{id\}\/_cancel$/, 'stops a job'],
  ];

  /** The targets more privileged than each caller: the membership the target holds. */
  type Membership = { scopeType: 'instance' | 'org' | 'project'; roles: string[] };
  const IAM_OWNER: Membership = { scopeType: 'instance', roles: ['IAM_OWNER'] };
  const ORG_OWNER: Membership = { scopeType: 'org', roles: ['ORG_OWNER'] };
  const PROJECT_OWNER: Membership = { scopeType: 'project', roles: ['PROJECT_OWNER'] };
  const CALLERS = [
    { role: 'ORG_USER_MANAGER', above: [IAM_OWNER, ORG_OWNER, PROJECT_OWNER] },
    { role: 'ORG_OWNER', above: [IAM_OWNER] },
  ];

  async function target(kind: Kind, membership?: Membership): Promise<string> {
    const userId = kind === 'human' ? (await insertHumanUser(t, { orgId: orgA })).userId : (await insertMachineUserWithToken(t, { orgId: orgA })).userId;
    if (membership) {
      const at = new Date();
      const scope = { instance: [t.instanceId, t.instanceId], org: [orgA, orgA], project: [project, orgA] }[membership.scopeType];
      await t.store.transaction((tx) =>
        tx.members.insert({ scopeType: membership.scopeType, scopeId: scope[0], userId, resourceOwner: scope[1], roles: membership.roles, sequence: 1, createdAt: at, changedAt: at }),
      );
    }
    return userId;
  }

  /** Everything a refused call could have written: the log's head, the outbox, and what the target has. */
  async function snapshot(userId: string) {
    const r = t.store.read;
    const page = { offset: 0, limit: 100, asc: true };
    return JSON.stringify({
      lastEvent: (await r.events.search({ limit: 1, offset: 0, asc: false })).events[0]?.position,
      outbox: (await r.notifications.search({}, page)).total,
      user: await r.users.get(userId),
      codes: [await r.notifications.code(userId, 'email_verification'), await r.notifications.code(userId, 'password_reset')],
      tokens: (await r.tokens.listByUser(userId, page)).rows,
      machineKeys: (await r.machineKeys.listByUser(userId, page)).rows,
      secret: await r.logins.machineSecrets.get(userId),
      otp: await r.logins.otpSecret(userId),
      links: (await r.idpLinks.listByUser(userId, page)).rows,
      members: await r.members.listByUser(userId),
      metadata: await r.userMetadata.all(userId),
    });
  }

  beforeAll(async () => {
    t = await createTestInstance(dialect);
    orgA = (await insertOrg(t, 'Authority A')).orgId;
    project = (await admin('POST', '/management/v1/projects', { name: 'P' })).id;
    idp = (
      await admin('POST', '/management/v1/idps/jwt', {
        name: 'Portal',
        jwtEndpoint: 'https://portal.example.com/jwt',
        issuer: 'https://portal.example.com',
        keysEndpoint: 'https://portal.example.com/keys',
        headerName: 'x-auth-token',
      })
    ).idpId;
  });
  afterAll(() => t.close());

  it('classifies every write of the spec: a change of a user, a cascade over users, or none, with a reason', () => {
    const writes = SPEC_OPERATIONS.filter((s) => s.method !== 'GET' && !s.template.endsWith('/_search'));
    const named = new Set([...GUARDED_OPERATIONS.map((op) => op.id), ...Object.keys(CASCADES), ...Object.keys(NOT_CHANGES_OF_THE_USER)]);
    const unclassified = writes.filter((s) => !named.has(s.id) && !NOT_ON_USERS.some(([pattern]) => pattern.test(`${s.method} ${s.template}`)));
    expect(unclassified.map((s) => `${s.method} ${s.template} (${s.id})`)).toEqual([]);
    // A write on a user's own path is named, never covered by a rule by its path.
    expect(writes.filter((s) => s.template.startsWith('/management/v1/users/{userId}') && !named.has(s.id)).map((s) => s.id)).toEqual([]);
    const specIds = new Set(SPEC_OPERATIONS.map((s) => s.id));
    expect([...named].filter((id) => !specIds.has(id))).toEqual([]);
  });

  describe.each(GUARDED_OPERATIONS.map((op) => [op.id, op] as const))('%s', (id, op) => {
    it('is refused against a user holding roles the caller may not grant, with nothing written, and allowed against a plain user', async () => {
      const spec = SPEC_OPERATIONS.find((s) => s.id === id)!;
      const problems: string[] = [];
      for (const { role, above } of CALLERS) {
        const caller = await insertMachineUserWithToken(t, { orgId: orgA, orgRoles: [role] });
        for (const membership of above) {
          const userId = await target(op.user, membership);
          const { method, path, body } = await op.request(userId);
          expect(spec.method === method && spec.pattern.test(path), `${id} must call ${spec.method} ${spec.template}`).toBe(true);
          const before = await snapshot(userId);
          const res = await t.call(method, path, { token: caller.token, body });
          const answer = await res.json();
          const who = `${role} on a ${membership.roles[0]} ${op.user}`;
          if (res.status !== 403) problems.push(`${who}: expected 403, got ${res.status} ${JSON.stringify(answer)}`);
          else {
            expect(answer).toEqual({
              code: 7,
              message: expect.any(String),
              details: [{ '@type': expect.any(String), id: 'COMMAND-Auth0r', message: expect.any(String), requestId: expect.any(String) }],
            });
            if ((await snapshot(userId)) !== before) problems.push(`${who}: the refused call wrote something`);
          }
        }
        const plain = await target(op.user);
        const { method, path, body } = await op.request(plain);
        const res = await t.call(method, path, { token: caller.token, body });
        if (res.status !== 200) problems.push(`${role} on a plain ${op.user}: expected 200, got ${res.status} ${await res.text()}`);
      }
      expect(problems).toEqual([]);
    });
  });

  /** The same refusal for a cascade: 403 `COMMAND-Auth0r`, naming a user it may not grant the roles of, with nothing written. */
  async function expectRefused(res: Response, wrote: () => Promise<unknown>) {
    const answer = await res.json();
    expect(res.status, JSON.stringify(answer)).toBe(403);
    expect(answer).toMatchObject({ code: 7, details: [{ id: 'COMMAND-Auth0r' }] });
    expect(answer.message).toMatch(/roles the caller may not grant \(user \d+: IAM_OWNER on the instance\)/);
    expect(await wrote()).toBe(false);
  }
  const lastEvent = async () => (await t.store.read.events.search({ limit: 1, offset: 0, asc: false })).events[0]?.position;

  it('RemoveOrg: refused to an ORG_OWNER while the organisation holds a user it may not grant the roles of, allowed otherwise', async () => {
    for (const kind of ['human', 'machine'] as const) {
      const orgId = (await insertOrg(t, `Holding ${kind} ${++n}`)).orgId;
      const owner = await insertMachineUserWithToken(t, { orgId, orgRoles: ['ORG_OWNER'] });
      const root = kind === 'human' ? (await insertHumanUser(t, { orgId })).userId : (await insertMachineUserWithToken(t, { orgId })).userId;
      await t.store.transaction((tx) =>
        tx.members.insert({ scopeType: 'instance', scopeId: t.instanceId, userId: root, resourceOwner: t.instanceId, roles: ['IAM_OWNER'], sequence: 1, createdAt: new Date(), changedAt: new Date() }),
      );
      const before = await lastEvent();
      await expectRefused(
        await t.call('DELETE', '/management/v1/orgs/me', { token: owner.token, headers: { 'x-service-orgid': orgId } }),
        async () => (await lastEvent()) !== before || !(await t.store.read.orgs.get(orgId)),
      );
    }
    const plainOrg = (await insertOrg(t, `Plain ${++n}`)).orgId;
    await insertHumanUser(t, { orgId: plainOrg });
    const owner = await insertMachineUserWithToken(t, { orgId: plainOrg, orgRoles: ['ORG_OWNER'] });
    expect((await t.call('DELETE', '/management/v1/orgs/me', { token: owner.token, headers: { 'x-service-orgid': plainOrg } })).status).toBe(200);
  });

  it('changing, deactivating or removing an identity provider: refused to an ORG_OWNER while a user it may not grant the roles of signs in with it', async () => {
    const jwtIdp = async () =>
      (
        await admin('POST', '/management/v1/idps/jwt', {
          name: `idp-${++n}`,
          jwtEndpoint: 'https://portal.example.com/jwt',
          issuer: 'https://portal.example.com',
          keysEndpoint: 'https://portal.example.com/keys',
          headerName: 'x-auth-token',
        })
      ).idpId as string;
    const oidcIdp = async () =>
      (await admin('POST', '/management/v1/idps/oidc', { name: `idp-${++n}`, clientId: 'partner', clientSecret: 'secret', issuer: 'https://partner.example.com' })).idpId as string;
    const IDP_OPERATIONS: { id: string; idp: () => Promise<string>; request: (idpId: string) => Promise<{ method: string; path: string; body?: unknown }> }[] = [
      { id: 'UpdateOrgIDP', idp: jwtIdp, request: async (id) => ({ method: 'PUT', path: `/management/v1/idps/${id}`, body: { name: `renamed-${++n}`, autoRegister: true } }) },
      {
        id: 'UpdateOrgIDPJWTConfig',
        idp: jwtIdp,
        request: async (id) => ({
          method: 'PUT',
          path: `/management/v1/idps/${id}/jwt_config`,
          body: { jwtEndpoint: 'https://evil.example/jwt', issuer: 'https://evil.example', keysEndpoint: 'https://evil.example/keys', headerName: 'x-auth-token' },
        }),
      },
      {
        id: 'UpdateOrgIDPOIDCConfig',
        idp: oidcIdp,
        request: async (id) => ({ method: 'PUT', path: `/management/v1/idps/${id}/oidc_config`, body: { clientId: 'evil', issuer: 'https://evil.example' } }),
      },
      { id: 'DeactivateOrgIDP', idp: jwtIdp, request: async (id) => ({ method: 'POST', path: `/management/v1/idps/${id}/_deactivate` }) },
      {
        id: 'ReactivateOrgIDP',
        idp: jwtIdp,
        request: async (id) => {
          await admin('POST', `/management/v1/idps/${id}/_deactivate`);
          return { method: 'POST', path: `/management/v1/idps/${id}/_reactivate` };
        },
      },
      { id: 'RemoveOrgIDP', idp: jwtIdp, request: async (id) => ({ method: 'DELETE', path: `/management/v1/idps/${id}` }) },
    ];
    expect(IDP_OPERATIONS.map((op) => op.id).sort()).toEqual(
      Object.keys(CASCADES)
        .filter((id) => /OrgIDP/.test(id))
        .sort(),
    );
    const owner = await insertMachineUserWithToken(t, { orgId: orgA, orgRoles: ['ORG_OWNER'] });
    const linked = async (idpId: string, userId: string) =>
      t.store.transaction((tx) => tx.idpLinks.insert({ idpId, externalUserId: `sub-${userId}`, userId, orgId: orgA, externalUserName: 'ext', createdAt: new Date() }));
    for (const op of IDP_OPERATIONS) {
      const idpId = await op.idp();
      await linked(idpId, await target('human', IAM_OWNER));
      const { method, path, body } = await op.request(idpId);
      const before = JSON.stringify([await lastEvent(), await t.store.read.idps.get(idpId), await t.store.read.idpLinks.listByIdp(idpId)]);
      const after = async () => JSON.stringify([await lastEvent(), await t.store.read.idps.get(idpId), await t.store.read.idpLinks.listByIdp(idpId)]) !== before;
      await expectRefused(await t.call(method, path, { token: owner.token, body }), after);
      // Linked only to users it may grant the roles of: allowed.
      const plainIdp = await op.idp();
      await linked(plainIdp, await target('human', ORG_OWNER));
      const allowed = await op.request(plainIdp);
      const res = await t.call(allowed.method, allowed.path, { token: owner.token, body: allowed.body });
      expect(res.status, `${op.id}: ${await res.text()}`).toBe(200);
    }
  });

  it('ImportData: OVERWRITE, metadata, links and keys of an existing user the importer may not grant the roles of are refused, each; of others imported', async () => {
    // Only iam.write imports (the matrix above), and IAM_OWNER may grant every default role: a
    // membership of a project grant that no longer exists stands for a role nobody may grant.
    const guarded = await target('human');
    const robot = await target('machine');
    const plain = await target('human');
    await t.store.transaction(async (tx) => {
      for (const userId of [guarded, robot]) {
        await tx.members.insert({
          scopeType: 'project_grant',
          scopeId: `gone-${userId}`,
          userId,
          resourceOwner: orgA,
          roles: ['PROJECT_GRANT_OWNER'],
          sequence: 1,
          createdAt: new Date(),
          changedAt: new Date(),
        });
      }
    });
    const userName = async (id: string) => (await t.store.read.users.get(id))!.userName;
    const human = async (id: string) => ({
      userId: id,
      user: { userName: await userName(id), profile: { firstName: 'Over', lastName: 'Written' }, email: { email: `${id}@evil.example`, isEmailVerified: true } },
    });
    const KEY = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const document = {
      orgs: [
        {
          orgId: orgA,
          org: { name: 'Authority A' },
          humanUsers: [await human(guarded), await human(plain)],
          userMetadata: [
            { id: guarded, key: 'role', value: 'YWRtaW4=' },
            { id: plain, key: 'role', value: 'YWRtaW4=' },
          ],
          userLinks: [{ userId: guarded, idpId: idp, providedUserId: `evil-${guarded}`, providedUserName: 'evil' }],
          machineKeys: [{ keyId: `9${Date.now()}1`, userId: robot, type: 'KEY_TYPE_JSON', expirationDate: '2099-01-01T00:00:00Z', publicKey: Buffer.from(KEY).toString('base64') }],
        },
      ],
    };
    // What the users have, and their events (the plain user's changes move the log's head).
    const ofUser = async (userId: string) => {
      const { lastEvent: _head, outbox: _outbox, ...own } = JSON.parse(await snapshot(userId));
      return JSON.stringify({ own, events: (await t.store.read.events.search({ aggregateId: userId, limit: 100, offset: 0, asc: true })).events.length });
    };
    const before = await ofUser(guarded);
    const robotBefore = await ofUser(robot);
    const res = await t.call('POST', '/admin/v1/import', { body: { timeout: '1m', conflictPolicy: 'OVERWRITE', dataOrgs: document } });
    const answer = await res.json();
    expect(res.status, JSON.stringify(answer)).toBe(200);
    const refused = (answer.errors ?? []).filter((e: { message: string }) => e.message.includes('COMMAND-Auth0r'));
    expect(refused.map((e: { type: string }) => e.type).sort()).toEqual(['human_user', 'machine_user_key', 'user_link', 'user_metadata']);
    expect(await ofUser(guarded)).toBe(before);
    expect(await ofUser(robot)).toBe(robotBefore);
    // The plain user took the document's values.
    expect(((await t.store.read.users.get(plain))!.data as { profile: { lastName: string } }).profile.lastName).toBe('Written');
    expect(await t.store.read.userMetadata.get(plain, 'role')).toBeDefined();
  });
});
