/**
 * One organisation of an import, inside one transaction (all of it or none of it). Resources
 * that already exist are reported in `errors` and skipped; nothing is updated or merged, so a
 * second run of the same document changes nothing. Imported resources get no events of their
 * own (description §4.5 rule 3): their state rows start at sequence 0.
 */
import { oidcRowFields } from '../idps/commands.js';
import { normaliseDomain } from '../orgs/domains.js';
import { generateToken, hashToken } from '../../auth/tokens.js';
import type { AggregateLock, Repositories } from '../../store/store.js';
import { DomainError, GrpcCode } from '../errors.js';
import { newId } from '../ids.js';
import { SUPPORTED_LANGUAGES } from '../languages.js';
import { domainLock, orgPrimaryDomain } from '../orgs/domain.js';
import { ORG_ROLES, PROJECT_GRANT_ROLES, PROJECT_ROLES } from '../permissions.js';
import { MESSAGE_TEXT_LISTS, type DataOrg } from './document.js';
import { templateProblem } from '../notifications/template.js';
import { queueUserMessage } from '../notifications/queue.js';
import { POLICY_KINDS } from '../policies/index.js';
import { bareLoginOrgIds, loginNamesLock } from '../users/login-names.js';
import { withDefaults, type OidcAppInput } from '../apps/oidc-config.js';
import { importAppKeys, importMachineKeys } from './import-keys.js';
import { importedState } from './import-states.js';
import { listedUnderEitherOrg } from './import-grant-owner.js';

export interface ImportError {
  type: string;
  id: string;
  message: string;
}

export interface ImportSuccessOrg {
  orgId: string;
  humanUserIds?: string[];
  machineUserIds?: string[];
  projectIds?: string[];
  projectRoles?: string[];
  oidcAppIds?: string[];
  apiAppIds?: string[];
  userGrants?: { projectId: string; userId: string }[];
  projectGrants?: { grantId: string; projectId: string; orgId: string }[];
  projectGrantMembers?: { projectId: string; grantId: string; userId: string }[];
  orgMembers?: string[];
  projectMembers?: { projectId: string; userId: string }[];
  jwtIdps?: string[];
  /** ZITADEL's field name (sic). */
  oidcIpds?: string[];
  userLinks?: { userId: string; externalUserId: string; displayName: string; idpId: string }[];
  userMetadata?: { userId: string; key: string }[];
  loginTexts?: string[];
  messageTexts?: string[];
  domains?: string[];
  /** Ids of the imported machine keys and application keys (ZITADEL's names). */
  machineKeys?: string[];
  appKeys?: string[];
}

/** Fields of DataOrg this service does not hold: each entry is reported, never silently dropped. */
const UNSUPPORTED_LISTS: Record<string, { type: string; id: (item: any, orgId: string) => string; why?: string }> = {
  actions: { type: 'action', id: (a) => a.actionId, why: 'actions are scripts, and this service does not run scripts: this action was not imported (its flow runs without it)' },
  triggerActions: { type: 'trigger_action', id: (a) => `${a.flowType}_${a.triggerType}`, why: 'actions are scripts, and this service does not run scripts: this trigger was not imported' },
};

const MESSAGE_ERROR_TYPES: Record<string, string> = {
  initMessages: 'init_message',
  passwordResetMessages: 'password_reset_message',
  verifyEmailMessages: 'verify_email_message',
  verifyPhoneMessages: 'verify_phone_message',
  domainClaimedMessages: 'domain_claimed_message',
  passwordlessRegistrationMessages: 'passwordless_registration_message',
  verifySmsOtpMessages: 'verify_sms_otp_message',
  verifyEmailOtpMessages: 'verify_email_otp_message',
  inviteUserMessages: 'invite_user_messages',
};

/** ZITADEL's error text form `ID=<id> Message=<key>` (reference §5.5). */
export const msg = (id: string, key: string) => `ID=${id} Message=${key}`;

export interface OrgImportContext {
  /** Whose default policies apply (bare login names). */
  instanceId: string;
  org: DataOrg;
  /** Precomputed argon2 hashes of plain `password`s, by user id (hashing happens outside the transaction). */
  plainHashes: Map<string, string>;
  /** Seals a TOTP secret for the store (domain/users/otp-secret.ts). */
  sealOtp: (base32: string) => string;
  /** Seals an OIDC identity provider's client secret for the store (domain/idps/idp.ts). */
  sealIdpSecret: (clientSecret: string) => string;
  /** Expired deadline (checked between steps; the transaction then rolls back). */
  signal: { readonly aborted: boolean };
  onTimeout: () => DomainError;
  errors: ImportError[];
  /**
   * Users of organisations imported later in this import (import-order.ts): grants and
   * memberships naming them are not imported with the organisation but handed back in
   * `deferred`, to be imported by importReferences once those users exist.
   */
  importedLater?: (userId: string) => boolean;
  deferred?: OrgReferences;
  missingUsers: Map<string, number>;
  /** Queue the verification / init mail for each imported human that needs one (the request's `notifyUsers`). */
  notifyUsers?: boolean;
}

/** The parts of an organisation that name users: user grants, organisation and project members. */
/** Project grants are among them: they name another organisation, which may be imported later. */
export type OrgReferences = Pick<DataOrg, 'userGrants' | 'orgMembers' | 'projectMembers' | 'projectGrants' | 'projectGrantMembers'>;

export interface ReferenceImportContext {
  orgId: string;
  refs: OrgReferences;
  errors: ImportError[];
  /** Receives each imported reference, into the organisation's entry of the import's success list. */
  ok: ImportSuccessOrg;
  check: () => void;
  at: Date;
  /** Users named by references but neither in the document nor here: how many references each (→ the import's warnings). */
  missingUsers: Map<string, number>;
}

/** A document may omit the name (ZITADEL's Auth0 migration output does): the id stands in. */
const importedOrgName = (org: DataOrg, orgId: string) => (org.org?.name ?? orgId).trim() || orgId;

/**
 * What the organisation's transaction must lock before importOrg checks anything (ARCHITECTURE.md,
 * "Locks before checks"): the instance's login names (its users' names are checked against other
 * organisations' when login names carry no domain) and every domain it brings or is given (each
 * checked against other organisations' verified and primary domains), as the API's commands do.
 */
export function orgImportLocks(org: DataOrg, instanceId: string, instanceDomain: string): AggregateLock[] {
  const domains = new Set<string>();
  // Without an id the organisation gets a new one, whose domain nobody else can have.
  const name = org.orgId ? importedOrgName(org, org.orgId) : org.org?.name?.trim();
  if (name) domains.add(orgPrimaryDomain(name, instanceDomain));
  for (const d of org.domains ?? []) {
    try {
      domains.add(normaliseDomain(d.domainName ?? ''));
    } catch {
      // Reported by importOrg; nothing of it is checked or written.
    }
  }
  return [loginNamesLock(instanceId), ...[...domains].map(domainLock)];
}

export async function importOrg(tx: Repositories, c: OrgImportContext): Promise<ImportSuccessOrg | undefined> {
  const { org, errors } = c;
  const check = () => {
    if (c.signal.aborted) throw c.onTimeout();
  };
  const at = new Date();
  const stamp = { sequence: 0, createdAt: at, changedAt: at };
  const orgId = org.orgId ?? newId();
  const ok: ImportSuccessOrg = { orgId };
  const push = <K extends keyof ImportSuccessOrg>(key: K, value: NonNullable<ImportSuccessOrg[K]> extends (infer E)[] ? E : never) => {
    ((ok[key] ??= [] as never) as unknown[]).push(value);
  };

  // The organisation: created, or (as ZITADEL does) imported into when its id exists.
  const existingOrg = await tx.orgs.get(orgId);
  if (existingOrg) {
    errors.push({ type: 'org', id: orgId, message: msg('ORG-lapo2n', 'Errors.Org.AlreadyExisting') });
  } else {
    const name = importedOrgName(org, orgId);
    if (await tx.orgs.getByNameKey(name.toLowerCase())) {
      errors.push({ type: 'org', id: orgId, message: msg('ORG-3M9f2', `Errors.Org.AlreadyExists: the name "${name}" is taken by another organisation; its resources were not imported`) });
      return undefined;
    }
    const instance = await tx.instance.get();
    const primaryDomain = orgPrimaryDomain(name, instance?.domain ?? 'localhost');
    if (await tx.orgs.getByPrimaryDomain(primaryDomain)) {
      errors.push({ type: 'org', id: orgId, message: msg('ORG-3M9f3', `Errors.Org.Domain.AlreadyExists: ${primaryDomain}; its resources were not imported`) });
      return undefined;
    }
    await tx.orgs.insert({
      id: orgId, name, nameKey: name.toLowerCase(), state: org.orgState === 'ORG_STATE_INACTIVE' ? 'ORG_STATE_INACTIVE' : 'ORG_STATE_ACTIVE', primaryDomain, ...stamp,
    });
  }

  for (const [field, spec] of Object.entries(UNSUPPORTED_LISTS)) {
    for (const item of ((org as Record<string, unknown[]>)[field] ?? [])) {
      errors.push({ type: spec.type, id: spec.id(item, orgId), message: msg('IMPORT-uNsup', spec.why ?? `${field} are not supported by this service; this entry was not imported`) });
    }
  }

  // ---- domains: as the document has them; the one generated from the name here stays (verified) ----
  for (const d of org.domains ?? []) {
    check();
    let domain: string;
    try {
      domain = normaliseDomain(d.domainName ?? '');
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      errors.push({ type: 'domain', id: `${orgId}_${d.domainName}`, message: msg(error.id, error.message) });
      continue;
    }
    if (d.isVerified && (await tx.orgDomains.verifiedElsewhere(domain, orgId))) {
      errors.push({ type: 'domain', id: `${orgId}_${domain}`, message: msg('ORG-i2bsd', 'Another organisation has verified this domain') });
      continue;
    }
    const validationType = d.validationType ?? 'DOMAIN_VALIDATION_TYPE_UNSPECIFIED';
    if (await tx.orgDomains.get(orgId, domain)) await tx.orgDomains.update(orgId, domain, { isVerified: Boolean(d.isVerified), validationType });
    else await tx.orgDomains.insert({ orgId, domain, isVerified: Boolean(d.isVerified), isPrimary: false, validationType, validationToken: null, ...stamp });
    if (d.isPrimary) {
      const taken = await tx.orgs.getByPrimaryDomain(domain);
      if (taken && taken.id !== orgId) errors.push({ type: 'domain', id: `${orgId}_${domain}`, message: msg('ORG-i2bsd', 'Another organisation uses this domain as its primary one; it was imported but not made primary') });
      else await tx.orgDomains.setPrimary(orgId, domain, stamp.sequence, stamp.createdAt);
    }
    push('domains', domain);
  }

  // ---- policies: the organisation's own (without one in the document, the target's instance policy applies) ----
  for (const kind of POLICY_KINDS) {
    const given = (org as Record<string, unknown>)[kind.documentField];
    if (!given) continue;
    let settings;
    try {
      settings = (kind.parse as (input: unknown) => object)(given);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      errors.push({ type: kind.importType, id: orgId, message: msg(error.id, error.message) });
      continue;
    }
    if (await tx.policies.get(orgId, kind.kind)) {
      errors.push({ type: kind.importType, id: orgId, message: msg('Org-1T8k0s', `Errors.Org.${kind.documentField}.AlreadyExists`) });
      continue;
    }
    await tx.policies.upsert({ ownerId: orgId, kind: kind.kind, settings: settings as Record<string, unknown>, ...stamp });
  }

  // ---- users ----
  check();
  const humans = org.humanUsers ?? [];
  const machines = org.machineUsers ?? [];
  const allIds = [...humans.map((h) => h.userId), ...machines.map((m) => m.userId)];
  const takenIds = await tx.transfer.existingUserIds(allIds);
  const names = [...humans.map((h) => h.user.userName), ...machines.map((m) => m.user.userName)].map((n) => n.toLowerCase());
  const takenNames = await tx.transfer.existingUserNameKeys(orgId, names);
  // Without domains in login names (this organisation's domain policy), a user name is also a
  // login name across organisations: one another such organisation holds is refused too.
  const bareOrgs = await bareLoginOrgIds(tx, c.instanceId);
  const takenBare = bareOrgs.includes(orgId) ? await tx.transfer.existingUserNameKeysIn(bareOrgs.filter((id) => id !== orgId), names) : new Set<string>();
  const userRows: Parameters<Repositories['transfer']['insertUsers']>[0] = [];
  const otpRows: Parameters<Repositories['transfer']['insertOtpSecrets']>[0] = [];
  const claim = (type: string, id: string, userName: string): boolean => {
    if (takenIds.has(id)) {
      errors.push({ type, id, message: msg('COMMAND-ziuna', 'Errors.User.AlreadyExisting') });
      return false;
    }
    const key = userName.toLowerCase();
    if (takenNames.has(key)) {
      errors.push({ type, id, message: msg('COMMAND-k2unb', `Errors.User.AlreadyExists: user name "${userName}" is taken in the organisation`) });
      return false;
    }
    if (takenBare.has(key)) {
      errors.push({ type, id, message: msg('COMMAND-k2unb', `Errors.User.AlreadyExists: login names carry no domain, and another organisation has a user named "${userName}"`) });
      return false;
    }
    takenIds.add(id);
    takenNames.add(key);
    return true;
  };
  for (const h of humans) {
    if (h.state === 'USER_STATE_DELETED') {
      errors.push({ type: 'human_user', id: h.userId, message: msg('IMPORT-d3l3t', 'deleted users are not imported') });
      continue;
    }
    if (!claim('human_user', h.userId, h.user.userName)) continue;
    const u = h.user;
    const passwordHash = c.plainHashes.get(h.userId) ?? (u.hashedPassword?.value || null);
    const state = h.state && h.state !== 'USER_STATE_UNSPECIFIED' ? h.state : u.email.isEmailVerified && passwordHash ? 'USER_STATE_ACTIVE' : 'USER_STATE_INITIAL';
    userRows.push({
      id: h.userId, orgId, type: 'human', userName: u.userName, userNameKey: u.userName.toLowerCase(), state,
      data: stripUndefined({ profile: stripUndefined(u.profile), email: stripUndefined(u.email), ...(u.phone ? { phone: stripUndefined(u.phone) } : {}) }),
      passwordHash, passwordChangeRequired: Boolean(passwordHash && u.passwordChangeRequired), ...stamp,
    });
    if (u.otpCode) otpRows.push({ userId: h.userId, secret: c.sealOtp(u.otpCode), createdAt: at });
    for (const link of u.idps ?? []) {
      errors.push({ type: 'user_link', id: `${h.userId}_${link.configId}`, message: msg('IMPORT-uNsup', 'IDP links are not supported by this service and were not imported') });
    }
    push('humanUserIds', h.userId);
  }
  for (const m of machines) {
    if (m.state === 'USER_STATE_DELETED') {
      errors.push({ type: 'machine_user', id: m.userId, message: msg('IMPORT-d3l3t', 'deleted users are not imported') });
      continue;
    }
    if (!claim('machine_user', m.userId, m.user.userName)) continue;
    userRows.push({
      id: m.userId, orgId, type: 'machine', userName: m.user.userName, userNameKey: m.user.userName.toLowerCase(),
      state: m.state && m.state !== 'USER_STATE_UNSPECIFIED' ? m.state : 'USER_STATE_ACTIVE',
      data: stripUndefined({ name: m.user.name, description: m.user.description, accessTokenType: m.user.accessTokenType ?? 'ACCESS_TOKEN_TYPE_BEARER' }),
      passwordHash: null, passwordChangeRequired: false, ...stamp,
    });
    push('machineUserIds', m.userId);
  }
  await tx.transfer.insertUsers(userRows);
  if (c.notifyUsers) {
    // ZITADEL's triggers, as for a user added through the API (users/commands.ts).
    for (const row of userRows) {
      if (row.type !== 'human') continue;
      const email = (row.data as { email?: { email?: string; isEmailVerified?: boolean } }).email;
      if (!email?.email) continue;
      const recipient = { id: row.id, orgId, email: email.email };
      if (!row.passwordHash) await queueUserMessage(tx, 'init', recipient, at);
      else if (!email.isEmailVerified) await queueUserMessage(tx, 'verify_email', recipient, at);
    }
  }
  await tx.transfer.insertOtpSecrets(otpRows);
  check();

  // ---- projects, roles, OIDC apps ----
  const projects = org.projects ?? [];
  const takenProjects = await tx.transfer.existingProjectIds(projects.map((p) => p.projectId));
  const takenProjectNames = await tx.transfer.existingProjectNames(orgId);
  const projectRows: Parameters<Repositories['transfer']['insertProjects']>[0] = [];
  for (const p of projects) {
    if (takenProjects.has(p.projectId)) {
      errors.push({ type: 'project', id: p.projectId, message: msg('COMMAND-opamwu', 'Errors.Project.AlreadyExisting') });
      continue;
    }
    if (takenProjectNames.has(p.project.name)) {
      errors.push({ type: 'project', id: p.projectId, message: msg('PROJECT-3M9f4', `Errors.Project.AlreadyExists: name "${p.project.name}" is taken in the organisation`) });
      continue;
    }
    takenProjects.add(p.projectId);
    takenProjectNames.add(p.project.name);
    projectRows.push({
      id: p.projectId, orgId, name: p.project.name, state: importedState(p.state, 'PROJECT_STATE_INACTIVE'),
      projectRoleAssertion: p.project.projectRoleAssertion ?? false, projectRoleCheck: p.project.projectRoleCheck ?? false,
      hasProjectCheck: p.project.hasProjectCheck ?? false, privateLabelingSetting: p.project.privateLabelingSetting ?? 'PRIVATE_LABELING_SETTING_UNSPECIFIED', ...stamp,
    });
    push('projectIds', p.projectId);
  }
  await tx.transfer.insertProjects(projectRows);

  // Projects of this organisation (imported now or before): the only ones roles, apps, grants and members may name.
  // (Grants and members name projects too: importReferences checks those.)
  const referenced = [...(org.projectRoles ?? []).map((r) => r.projectId), ...(org.oidcApps ?? []).map((a) => a.app.projectId), ...(org.apiApps ?? []).map((a) => a.app.projectId)];
  const projectOrg = await tx.transfer.projectOrgs(referenced);
  const projectName = new Map(projectRows.map((p) => [p.id, p.name]));
  const inThisOrg = (projectId: string, type: string, id: string) => {
    if (projectOrg.get(projectId) === orgId) return true;
    errors.push({ type, id, message: msg('PROJECT-n0tF0', `Errors.Project.NotFound: project ${projectId} does not exist in organisation ${orgId}`) });
    return false;
  };

  const roles = org.projectRoles ?? [];
  const takenRoles = await tx.transfer.existingRoleKeys([...new Set(roles.map((r) => r.projectId))]);
  const roleRows: Parameters<Repositories['transfer']['insertProjectRoles']>[0] = [];
  for (const r of roles) {
    const key = `${r.projectId}_${r.roleKey}`;
    if (!inThisOrg(r.projectId, 'project_role', key)) continue;
    if (takenRoles.has(key)) {
      errors.push({ type: 'project_role', id: key, message: msg('COMMAND-4m9vS', 'Errors.Project.Role.AlreadyExists') });
      continue;
    }
    takenRoles.add(key);
    roleRows.push({ projectId: r.projectId, roleKey: r.roleKey, orgId, displayName: r.displayName, group: r.group ?? '', ...stamp });
    push('projectRoles', key);
  }
  await tx.transfer.insertProjectRoles(roleRows);

  // OIDC and API applications share one table, so one set of taken ids and client ids.
  const apps = org.oidcApps ?? [];
  const apiApps = org.apiApps ?? [];
  const everyApp = [...apps, ...apiApps];
  const takenApps = await tx.transfer.existingOidcAppIds(everyApp.map((a) => a.appId));
  const takenClientIds = await tx.transfer.existingClientIds(everyApp.flatMap((a) => (a.identityServiceClient ? [a.identityServiceClient.clientId] : [])));
  const appRows: Parameters<Repositories['transfer']['insertOidcApps']>[0] = [];
  /**
   * A document exported by this service carries the client's credentials (identityServiceClient):
   * kept, so relying parties keep working after the move. Otherwise new ones, as in ZITADEL; a
   * confidential client then gets a secret nobody knows until it is regenerated.
   */
  // A ZITADEL document names an application's client id only in its keys (appKeys): kept, so the
  // key files made before the move (whose `clientId` signs the assertions) still match.
  const keyClientIds = new Map((org.appKeys ?? []).flatMap((k) => (k.appId && k.clientId ? [[k.appId, k.clientId] as const] : [])));
  const credentials = (type: string, appId: string, projectId: string, given: { clientId: string; clientSecretHash?: string } | undefined) => {
    const kept = given ?? (keyClientIds.has(appId) ? { clientId: keyClientIds.get(appId)! } : undefined);
    const slug = (projectName.get(projectId) ?? projectId).toLowerCase().replace(/[^a-z0-9]+/g, '');
    let clientId = `${newId()}@${slug || 'project'}`;
    if (kept && takenClientIds.has(kept.clientId)) {
      errors.push({ type, id: appId, message: msg('IMPORT-cl1d0', `client id "${kept.clientId}" is taken on this instance; the application was imported with the new client id ${clientId} and needs a new secret`) });
    } else if (kept) {
      clientId = kept.clientId;
      takenClientIds.add(clientId);
    }
    // A secret nobody knows, hashed as every client secret is (one encoding in the store and the document).
    const secretHash = (kept && clientId === kept.clientId ? kept.clientSecretHash : undefined) ?? hashToken(generateToken());
    return { clientId, secretHash };
  };
  for (const a of apps) {
    if (!inThisOrg(a.app.projectId, 'oidc_app', a.appId)) continue;
    if (takenApps.has(a.appId)) {
      errors.push({ type: 'oidc_app', id: a.appId, message: msg('PROJECT-lxowmp', 'Errors.Project.App.AlreadyExisting') });
      continue;
    }
    takenApps.add(a.appId);
    const { projectId, name, ...config } = a.app;
    // NONE (public) and PRIVATE_KEY_JWT (keys, imported below) have no secret.
    const publicClient = config.authMethodType === 'OIDC_AUTH_METHOD_TYPE_NONE' || config.authMethodType === 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT';
    const { clientId, secretHash } = credentials('oidc_app', a.appId, projectId, a.identityServiceClient);
    appRows.push({
      id: a.appId, projectId, orgId, name, state: importedState(a.state, 'APP_STATE_INACTIVE'), clientId,
      clientSecretHash: publicClient ? null : secretHash,
      // The same defaults as AddOIDCApp: the document may leave any optional field out.
      config: withDefaults(stripUndefined(config) as OidcAppInput) as unknown as Record<string, unknown>,
      ...stamp,
    });
    push('oidcAppIds', a.appId);
  }
  // API applications (domain/apps/api-apps.ts): credentials as for OIDC applications above.
  for (const a of apiApps) {
    if (!inThisOrg(a.app.projectId, 'api_app', a.appId)) continue;
    if (takenApps.has(a.appId)) {
      errors.push({ type: 'api_app', id: a.appId, message: msg('PROJECT-lxowmp', 'Errors.Project.App.AlreadyExisting') });
      continue;
    }
    takenApps.add(a.appId);
    const { clientId, secretHash } = credentials('api_app', a.appId, a.app.projectId, a.identityServiceClient);
    // A PRIVATE_KEY_JWT application has no secret: its keys (appKeys) are imported below.
    const authMethodType = a.app.authMethodType ?? 'API_AUTH_METHOD_TYPE_BASIC';
    appRows.push({
      id: a.appId, projectId: a.app.projectId, orgId, name: a.app.name, state: importedState(a.state, 'APP_STATE_INACTIVE'), clientId, appType: 'api',
      clientSecretHash: authMethodType === 'API_AUTH_METHOD_TYPE_BASIC' ? secretHash : null,
      config: { authMethodType }, ...stamp,
    });
    push('apiAppIds', a.appId);
  }
  await tx.transfer.insertOidcApps(appRows);
  check();

  // ---- identity providers, JWT and OIDC: ids and names (per organisation) are unique ----
  const jwtIdps = org.jwtIdps ?? [];
  const oidcIdps = org.oidcIdps ?? [];
  const takenIdps = await tx.transfer.existingIdpIds([...jwtIdps, ...oidcIdps].map((i) => i.idpId));
  const takenIdpNames = await tx.transfer.existingIdpNameKeys(orgId);
  const idpRows: Parameters<Repositories['transfer']['insertIdps']>[0] = [];
  /** The provider's id and name are free (then taken), else its error is reported. */
  const claimIdp = (type: string, idpId: string, name: string) => {
    const nameKey = name.toLowerCase();
    if (takenIdps.has(idpId) || takenIdpNames.has(nameKey)) {
      errors.push({ type, id: idpId, message: msg('V3-DKcYh', 'Errors.IDPConfig.AlreadyExists') });
      return undefined;
    }
    takenIdps.add(idpId);
    takenIdpNames.add(nameKey);
    return nameKey;
  };
  for (const i of jwtIdps) {
    const nameKey = claimIdp('jwt_idp', i.idpId, i.idp.name);
    if (!nameKey) continue;
    idpRows.push({
      id: i.idpId, ownerId: orgId, ownerType: 'IDP_OWNER_TYPE_ORG', name: i.idp.name, nameKey, state: importedState(i.state, 'IDP_STATE_INACTIVE'),
      stylingType: i.idp.stylingType ?? 'STYLING_TYPE_UNSPECIFIED', autoRegister: i.idp.autoRegister ?? false,
      jwtEndpoint: i.idp.jwtEndpoint, jwtIssuer: i.idp.issuer, jwtKeysEndpoint: i.idp.keysEndpoint, jwtHeaderName: i.idp.headerName,
      idpType: 'IDP_TYPE_JWT', oidcConfig: null, oidcClientSecretSealed: null, ...stamp,
    });
    push('jwtIdps', i.idpId);
  }
  for (const i of oidcIdps) {
    const nameKey = claimIdp('oidc_idp', i.idpId, i.idp.name);
    if (!nameKey) continue;
    const config = {
      clientId: i.idp.clientId,
      issuer: i.idp.issuer,
      scopes: [...new Set(i.idp.scopes ?? [])],
      displayNameMapping: i.idp.displayNameMapping ?? 'OIDC_MAPPING_FIELD_UNSPECIFIED',
      usernameMapping: i.idp.usernameMapping ?? 'OIDC_MAPPING_FIELD_UNSPECIFIED',
    };
    // Without a client secret (an export without `withPasswords`) the provider is kept but not
    // offered at the login until an administrator sets one (UpdateOrgIDPOIDCConfig).
    const sealed = i.idp.clientSecret ? c.sealIdpSecret(i.idp.clientSecret) : null;
    idpRows.push({
      id: i.idpId, ownerId: orgId, ownerType: 'IDP_OWNER_TYPE_ORG', name: i.idp.name, nameKey, state: importedState(i.state, 'IDP_STATE_INACTIVE'),
      stylingType: i.idp.stylingType ?? 'STYLING_TYPE_UNSPECIFIED', autoRegister: i.idp.autoRegister ?? false,
      ...oidcRowFields(config, sealed), ...stamp,
    });
    push('oidcIpds', i.idpId);
  }
  await tx.transfer.insertIdps(idpRows);

  // ---- users' metadata: of this organisation's users (in the document or already here) ----
  for (const m of org.userMetadata ?? []) {
    const id = `${m.id}_${m.key}`;
    const user = await tx.users.get(m.id ?? '');
    if (!user || user.orgId !== orgId) {
      errors.push({ type: 'user_metadata', id, message: msg('META-ncnoQ', `Errors.User.NotFound: ${m.id} is no user of organisation ${orgId}`) });
      continue;
    }
    if (await tx.userMetadata.get(user.id, m.key)) {
      errors.push({ type: 'user_metadata', id, message: msg('META-4lr3X', 'Errors.Metadata.AlreadyExists') });
      continue;
    }
    const value = Buffer.from(m.value.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('base64');
    await tx.userMetadata.upsert({ userId: user.id, key: m.key, value, orgId, ...stamp });
    push('userMetadata', { userId: user.id, key: m.key });
  }

  // ---- keys: public keys of this organisation's machine users and PRIVATE_KEY_JWT applications ----
  check();
  await importMachineKeys(tx, org.machineKeys ?? [], { orgId, errors, at, imported: (id) => push('machineKeys', id) });
  await importAppKeys(tx, org.appKeys ?? [], { orgId, errors, at, imported: (id) => push('appKeys', id) });

  // ---- users' links to identity providers: the organisation's own providers or the instance's ----
  for (const l of org.userLinks ?? []) {
    const id = `${l.userId}_${l.idpId}_${l.providedUserId}`;
    const user = await tx.users.get(l.userId);
    if (!user || user.orgId !== orgId || user.type !== 'human') {
      errors.push({ type: 'user_link', id, message: msg('COMMAND-1M8fa', `Errors.User.NotFound: ${l.userId} is no human user of organisation ${orgId}`) });
      continue;
    }
    const idp = await tx.idps.get(l.idpId);
    if (!idp || (idp.ownerId !== orgId && idp.ownerType !== 'IDP_OWNER_TYPE_SYSTEM')) {
      errors.push({ type: 'user_link', id, message: msg('COMMAND-39Kd9', `Errors.IDPConfig.NotExisting: ${l.idpId} is no identity provider of organisation ${orgId} or of the instance`) });
      continue;
    }
    if (await tx.idpLinks.get(l.idpId, l.providedUserId)) {
      errors.push({ type: 'user_link', id, message: msg('COMMAND-4Jk3l', 'Errors.User.ExternalIDP.AlreadyExists') });
      continue;
    }
    await tx.idpLinks.insert({ idpId: l.idpId, externalUserId: l.providedUserId, userId: l.userId, orgId, externalUserName: l.providedUserName || l.providedUserId, createdAt: at });
    push('userLinks', { userId: l.userId, externalUserId: l.providedUserId, displayName: l.providedUserName || l.providedUserId, idpId: l.idpId });
  }

  // ---- user grants and memberships: now, or after the organisations whose users they name ----
  const { now, later } = splitReferences(org, c.importedLater);
  await importReferences(tx, { orgId, refs: now, errors, ok, check, at, missingUsers: c.missingUsers });
  if (later) c.deferred = later;

  // ---- texts: into the imported organisation (ZITADEL writes message texts to the caller's org) ----
  const supported = new Set<string>(SUPPORTED_LANGUAGES);
  const takenLogin = await tx.transfer.existingLoginTextLanguages(orgId);
  const loginRows: Parameters<Repositories['transfer']['insertLoginTexts']>[0] = [];
  for (const l of org.loginTexts ?? []) {
    const language = l.language.toLowerCase();
    const id = `${orgId}_${language}`;
    if (!supported.has(language)) {
      errors.push({ type: 'login_texts', id, message: msg('LANG-lg4DP', 'Errors.Language.NotSupported') });
      continue;
    }
    if (takenLogin.has(language)) {
      errors.push({ type: 'login_texts', id, message: msg('IMPORT-t3xtE', 'custom login texts for this language already exist; not changed') });
      continue;
    }
    takenLogin.add(language);
    const { language: _, ...screens } = l;
    loginRows.push({ ownerId: orgId, language, screens: screens as Record<string, Record<string, string>>, ...stamp });
    push('loginTexts', language);
  }
  await tx.transfer.insertLoginTexts(loginRows);

  const takenTexts = await tx.transfer.existingMessageTextKeys(orgId);
  const textRows: Parameters<Repositories['transfer']['insertMessageTexts']>[0] = [];
  for (const [list, messageType] of Object.entries(MESSAGE_TEXT_LISTS)) {
    for (const text of ((org as Record<string, { language: string }[]>)[list] ?? [])) {
      const language = text.language.toLowerCase();
      const type = MESSAGE_ERROR_TYPES[list];
      const id = `${orgId}_${language}`;
      if (!supported.has(language)) {
        errors.push({ type, id, message: msg('LANG-lg4DP', 'Errors.Language.NotSupported') });
        continue;
      }
      if (takenTexts.has(`${messageType}_${language}`)) {
        errors.push({ type, id, message: msg('IMPORT-t3xtE', 'a custom text of this type and language already exists; not changed') });
        continue;
      }
      const { language: _, ...fields } = text as Record<string, string>;
      // Texts this service renders always render (notifications/template.ts): a broken one is reported, not stored.
      const rendered = messageType === 'VerifyEmail' || messageType === 'InitCode';
      const broken = !rendered ? undefined : Object.entries(fields).map(([key, value]) => [key, typeof value === 'string' ? templateProblem(value) : undefined] as const).find(([, problem]) => problem);
      if (broken) {
        errors.push({ type, id, message: msg('TEXT-t3mpl', `invalid ${broken[0]}: ${broken[1]}`) });
        continue;
      }
      takenTexts.add(`${messageType}_${language}`);
      textRows.push({ ownerId: orgId, messageType, language, fields: stripUndefined(fields), ...stamp });
      push('messageTexts', `${messageType}_${language}`);
    }
  }
  await tx.transfer.insertMessageTexts(textRows);
  check();
  return ok;
}

/**
 * User grants and memberships of one organisation, whose users may belong to it, to an
 * organisation imported before, or to the target instance already. Run inside importOrg, and
 * again on its own (in a transaction of its own) for references importOrg deferred.
 */
export async function importReferences(tx: Repositories, c: ReferenceImportContext): Promise<void> {
  const { orgId, refs, errors, ok, check } = c;
  const stamp = { sequence: 0, createdAt: c.at, changedAt: c.at };
  const push = <K extends keyof ImportSuccessOrg>(key: K, value: NonNullable<ImportSuccessOrg[K]> extends (infer E)[] ? E : never) => {
    ((ok[key] ??= [] as never) as unknown[]).push(value);
  };
  const projectOrg = await tx.transfer.projectOrgs([
    ...(refs.userGrants ?? []).map((g) => g.projectId), ...(refs.projectMembers ?? []).map((m) => m.projectId), ...(refs.projectGrants ?? []).map((g) => g.projectGrant.projectId),
  ]);
  const inThisOrg = (projectId: string, type: string, id: string) => {
    if (projectOrg.get(projectId) === orgId) return true;
    errors.push({ type, id, message: msg('PROJECT-n0tF0', `Errors.Project.NotFound: project ${projectId} does not exist in organisation ${orgId}`) });
    return false;
  };
  check();
  // ---- project grants (ZITADEL's DataProjectGrant; the id is kept: user grants name it) ----
  const projectGrants = refs.projectGrants ?? [];
  const projectGrantRoles = await tx.transfer.existingRoleKeys([...new Set(projectGrants.map((g) => g.projectGrant.projectId))]);
  const takenProjectGrantIds = await tx.projectGrants.existingIds(projectGrants.map((g) => g.grantId).filter(Boolean));
  for (const { grantId: givenId, projectGrant: pg, state: givenState } of projectGrants) {
    const id = `${orgId}_${pg.projectId}_${pg.grantedOrgId}`;
    if (!inThisOrg(pg.projectId, 'project_grant', id)) continue;
    if (pg.grantedOrgId === orgId || !(await tx.orgs.exists(pg.grantedOrgId))) {
      errors.push({ type: 'project_grant', id, message: msg('PROJECT-3m9s1', `Errors.Project.Grant.Invalid: granted organisation ${pg.grantedOrgId} is not another organisation of this instance`) });
      continue;
    }
    const missing = (pg.roleKeys ?? []).filter((k) => !projectGrantRoles.has(`${pg.projectId}_${k}`));
    if (missing.length) {
      errors.push({ type: 'project_grant', id, message: msg('PROJECT-m9gDs', `Errors.Project.Role.NotFound: ${missing.join(', ')}`) });
      continue;
    }
    if ((givenId && takenProjectGrantIds.has(givenId)) || (await tx.projectGrants.find(pg.projectId, pg.grantedOrgId))) {
      errors.push({ type: 'project_grant', id, message: msg('V3-DKcYh', 'Errors.Project.Grant.AlreadyExists') });
      continue;
    }
    const grantId = givenId || newId();
    takenProjectGrantIds.add(grantId);
    await tx.projectGrants.insert({ id: grantId, projectId: pg.projectId, orgId, grantedOrgId: pg.grantedOrgId, roleKeys: pg.roleKeys ?? [], state: importedState(givenState, 'PROJECT_GRANT_STATE_INACTIVE'), ...stamp });
    push('projectGrants', { grantId, projectId: pg.projectId, orgId });
  }

  const grants = refs.userGrants ?? [];
  const memberUserIds = [...grants.map((g) => g.userId), ...(refs.orgMembers ?? []).map((m) => m.userId), ...(refs.projectMembers ?? []).map((m) => m.userId), ...(refs.projectGrantMembers ?? []).map((m) => m.userId)];
  const knownUsers = await tx.transfer.existingUserIds(memberUserIds);
  // A user outside the document and this instance (e.g. the source's administrator, owner of the
  // organisations it created) is no error in the document: counted once per user, as a warning.
  const userExists = (userId: string) => {
    if (knownUsers.has(userId)) return true;
    c.missingUsers.set(userId, (c.missingUsers.get(userId) ?? 0) + 1);
    return false;
  };
  const takenGrants = await tx.transfer.existingUserGrantKeys(orgId, grants.map((g) => g.userId));
  const allRoleKeys = await tx.transfer.existingRoleKeys([...new Set(grants.map((g) => g.projectId))]);
  const grantRows: Parameters<Repositories['transfer']['insertUserGrants']>[0] = [];
  for (const g of grants) {
    const id = `${orgId}_${g.projectId}_${g.userId}`;
    // Through a project grant: the grant must give this organisation the project, and the roles.
    const projectGrant = g.projectGrantId ? await tx.projectGrants.get(g.projectGrantId) : undefined;
    if (g.projectGrantId && (!projectGrant || !listedUnderEitherOrg(projectGrant, g.projectId, orgId))) {
      errors.push({ type: 'user_grant', id, message: msg('COMMAND-4m9ff', `Errors.Project.Grant.NotFound: project grant ${g.projectGrantId}`) });
      continue;
    }
    if (!projectGrant && !inThisOrg(g.projectId, 'user_grant', id)) continue;
    if (!userExists(g.userId)) continue;
    // Given through a project grant, the user grant is the granted organisation's, wherever it is listed.
    const owner = projectGrant?.grantedOrgId ?? orgId;
    const key = owner === orgId ? `${g.projectId}_${g.userId}` : `${owner}_${g.projectId}_${g.userId}`;
    if (takenGrants.has(key) || (owner !== orgId && (await tx.userGrants.find(owner, g.userId, g.projectId)))) {
      errors.push({ type: 'user_grant', id, message: msg('V3-DKcYh', 'Errors.UserGrant.AlreadyExists') });
      continue;
    }
    const missing = (g.roleKeys ?? []).filter((k) => (projectGrant ? !projectGrant.roleKeys.includes(k) : !allRoleKeys.has(`${g.projectId}_${k}`)));
    if (missing.length) {
      errors.push({ type: 'user_grant', id, message: msg('COMMAND-mm9F4', `Errors.Project.Role.NotFound: ${missing.join(', ')}`) });
      continue;
    }
    takenGrants.add(key);
    grantRows.push({ id: newId(), orgId: owner, userId: g.userId, projectId: g.projectId, projectGrantId: projectGrant?.id ?? null, roleKeys: g.roleKeys ?? [], state: importedState(g.state, 'USER_GRANT_STATE_INACTIVE'), ...stamp });
    push('userGrants', { projectId: g.projectId, userId: g.userId });
  }
  await tx.transfer.insertUserGrants(grantRows);

  const memberRows: Parameters<Repositories['transfer']['insertMembers']>[0] = [];
  const takenOrgMembers = await tx.transfer.existingMemberKeys('org', [orgId]);
  for (const m of refs.orgMembers ?? []) {
    const id = `${orgId}_${m.userId}`;
    if (!userExists(m.userId)) continue;
    const bad = (m.roles ?? []).filter((r) => !(ORG_ROLES as readonly string[]).includes(r));
    if (bad.length || !m.roles?.length) {
      errors.push({ type: 'org_member', id, message: msg('ORG-4m9fS', `Errors.Org.MemberInvalid: roles ${bad.join(', ') || '(none)'}`) });
      continue;
    }
    if (takenOrgMembers.has(`${orgId}_${m.userId}`)) {
      errors.push({ type: 'org_member', id, message: msg('ORG-poWwe', 'Errors.Org.Member.AlreadyExists') });
      continue;
    }
    takenOrgMembers.add(`${orgId}_${m.userId}`);
    memberRows.push({ scopeType: 'org', scopeId: orgId, userId: m.userId, resourceOwner: orgId, roles: m.roles, ...stamp });
    push('orgMembers', m.userId);
  }
  const takenProjectMembers = await tx.transfer.existingMemberKeys('project', (refs.projectMembers ?? []).map((m) => m.projectId));
  for (const m of refs.projectMembers ?? []) {
    const id = `${orgId}_${m.projectId}_${m.userId}`;
    if (!inThisOrg(m.projectId, 'project_member', id) || !userExists(m.userId)) continue;
    const bad = (m.roles ?? []).filter((r) => !(PROJECT_ROLES as readonly string[]).includes(r));
    if (bad.length || !m.roles?.length) {
      errors.push({ type: 'project_member', id, message: msg('PROJECT-4m9fS', `Errors.Project.MemberInvalid: roles ${bad.join(', ') || '(none)'}`) });
      continue;
    }
    if (takenProjectMembers.has(`${m.projectId}_${m.userId}`)) {
      errors.push({ type: 'project_member', id, message: msg('PROJECT-37fug', 'Errors.AlreadyExists') });
      continue;
    }
    takenProjectMembers.add(`${m.projectId}_${m.userId}`);
    memberRows.push({ scopeType: 'project', scopeId: m.projectId, userId: m.userId, resourceOwner: orgId, roles: m.roles, ...stamp });
    push('projectMembers', { projectId: m.projectId, userId: m.userId });
  }
  // Project grant members: users of the granted organisation, on a grant of this organisation's project.
  for (const m of refs.projectGrantMembers ?? []) {
    const id = `${orgId}_${m.projectId}_${m.grantId}_${m.userId}`;
    const grant = await tx.projectGrants.get(m.grantId);
    if (!grant || !listedUnderEitherOrg(grant, m.projectId, orgId)) {
      errors.push({ type: 'project_grant_member', id, message: msg('PROJECT-D8JxR', `Errors.Project.Grant.NotFound: ${m.grantId}`) });
      continue;
    }
    if (!userExists(m.userId)) continue;
    const user = await tx.users.get(m.userId);
    const bad = (m.roles ?? []).filter((r) => !(PROJECT_GRANT_ROLES as readonly string[]).includes(r));
    if (user?.orgId !== grant.grantedOrgId || bad.length || !m.roles?.length) {
      errors.push({ type: 'project_grant_member', id, message: msg('PROJECT-0wpld', `Errors.Project.Member.Invalid: ${bad.length || !m.roles?.length ? `roles ${bad.join(', ') || '(none)'}` : 'the user is not of the granted organisation'}`) });
      continue;
    }
    if ((await tx.members.get('project_grant', grant.id, m.userId)) || memberRows.some((r) => r.scopeType === 'project_grant' && r.scopeId === grant.id && r.userId === m.userId)) {
      errors.push({ type: 'project_grant_member', id, message: msg('PROJECT-37fug', 'Errors.AlreadyExists') });
      continue;
    }
    memberRows.push({ scopeType: 'project_grant', scopeId: grant.id, userId: m.userId, resourceOwner: grant.grantedOrgId, roles: m.roles, ...stamp });
    push('projectGrantMembers', { projectId: m.projectId, grantId: m.grantId, userId: m.userId });
  }
  await tx.transfer.insertMembers(memberRows);

}

/**
 * The references of `org` to import with it, and those to import after every organisation: the
 * ones naming users of organisations imported later, project grants (their granted organisation
 * may come later) and the user grants given through a project grant (which must exist first;
 * import.ts imports every project grant before the other deferred references).
 */
function splitReferences(org: DataOrg, importedLater: ((userId: string) => boolean) | undefined): { now: OrgReferences; later?: OrgReferences } {
  const now: OrgReferences = {};
  const later: OrgReferences = {
    ...(org.projectGrants?.length ? { projectGrants: org.projectGrants } : {}),
    ...(org.projectGrantMembers?.length ? { projectGrantMembers: org.projectGrantMembers } : {}),
  };
  let deferred = Object.keys(later).length;
  for (const key of ['userGrants', 'orgMembers', 'projectMembers'] as const) {
    for (const ref of (org[key] ?? []) as { userId: string; projectGrantId?: string }[]) {
      const target = importedLater?.(ref.userId) || (key === 'userGrants' && ref.projectGrantId) ? later : now;
      if (target === later) deferred++;
      ((target[key] ??= []) as { userId: string }[]).push(ref);
    }
  }
  return deferred ? { now, later } : { now };
}

function stripUndefined<T extends Record<string, unknown>>(obj: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined && v !== '') out[k] = v;
  return out as T;
}

export const timeoutError = (ms: number, done: string[]) =>
  new DomainError(
    GrpcCode.DeadlineExceeded,
    'IMPORT-t1me0',
    `import timed out after ${ms / 1000}s; the organisation in progress was rolled back and later ones were not started` +
      (done.length ? ` (completed: ${done.join(', ')})` : ' (none was completed)'),
  );
