/**
 * The organisation's human and machine users (with their TOTP secrets, and their first mails when
 * the request asks for them). The ids and names are unique as for the users API (insertNewUser in
 * domain/users/commands.ts): an id taken here or by a removed user, a user name taken in the
 * organisation, and, where login names carry no domain, one taken in another such organisation.
 * Checked for the whole list at once: an organisation brings thousands of users.
 */
import type { UserRow } from '../../../store/repositories/users.js';
import type { Repositories } from '../../../store/store.js';
import { queueUserMessage } from '../../notifications/queue.js';
import { USER_AGGREGATE } from '../../users/aggregate.js';
import { bareLoginOrgIds } from '../../users/login-names.js';
import type { DataOrg } from '../document.js';
import { HistoryImport } from '../history.js';
import { msg, type OrgImport, stripUndefined } from './report.js';

export interface UserImportOptions {
  /** Whose default policies apply (bare login names). */
  instanceId: string;
  /** Precomputed argon2 hashes of plain `password`s, by user id (hashing happens outside the transaction). */
  plainHashes: Map<string, string>;
  /** Seals a TOTP secret for the store (domain/users/otp-secret.ts). */
  sealOtp: (base32: string) => string;
  /** Opens a stored TOTP secret, to compare an existing user's with the document's (OVERWRITE). */
  openOtp?: (stored: string) => string | undefined;
  /** Queue the verification / init mail for each imported human that needs one (the request's `notifyUsers`). */
  notifyUsers?: boolean;
}

export async function importUsers(tx: Repositories, org: DataOrg, run: OrgImport, o: UserImportOptions): Promise<void> {
  const { orgId, stamp, at } = run;
  const humans = org.humanUsers ?? [];
  const machines = org.machineUsers ?? [];
  const allIds = [...humans.map((h) => h.userId), ...machines.map((m) => m.userId)];
  const takenIds = await tx.transfer.existingUserIds(allIds);
  const names = [...humans.map((h) => h.user.userName), ...machines.map((m) => m.user.userName)].map((n) => n.toLowerCase());
  const takenNames = await tx.transfer.existingUserNameKeys(orgId, names);
  // Without domains in login names (this organisation's domain policy), a user name is also a
  // login name across organisations: one another such organisation holds is refused too.
  const bareOrgs = await bareLoginOrgIds(tx, o.instanceId);
  const takenBare = bareOrgs.includes(orgId)
    ? await tx.transfer.existingUserNameKeysIn(
        bareOrgs.filter((id) => id !== orgId),
        names,
      )
    : new Set<string>();
  const userRows: Parameters<Repositories['transfer']['insertUsers']>[0] = [];
  const otpRows: Parameters<Repositories['transfer']['insertOtpSecrets']>[0] = [];
  const otpCheckRows: Parameters<Repositories['transfer']['insertOtpChecks']>[0] = [];
  // The source's trail of each user created here (history.ts), appended once their rows are in.
  const histories = await HistoryImport.of(tx, run, 'user', [
    ...humans.map((h) => ({ id: h.userId, history: h.identityServiceHistory })),
    ...machines.map((m) => ({ id: m.userId, history: m.identityServiceHistory })),
  ]);
  const existing = (type: string, row: ExistingUserRow, given: GivenFields) => existingUser(tx, run, o, type, row, given);
  const claim = (type: string, id: string, userName: string): boolean => {
    const key = userName.toLowerCase();
    if (takenNames.has(key)) {
      run.clash(type, id, msg('COMMAND-k2unb', `Errors.User.AlreadyExists: user name "${userName}" is taken in the organisation`));
      return false;
    }
    if (takenBare.has(key)) {
      run.clash(type, id, msg('COMMAND-k2unb', `Errors.User.AlreadyExists: login names carry no domain, and another organisation has a user named "${userName}"`));
      return false;
    }
    takenIds.add(id);
    takenNames.add(key);
    return true;
  };
  for (const h of humans) {
    if (h.state === 'USER_STATE_DELETED') {
      run.refuse('human_user', h.userId, msg('IMPORT-d3l3t', 'deleted users are not imported'));
      continue;
    }
    const u = h.user;
    const passwordHash = o.plainHashes.get(h.userId) ?? (u.hashedPassword?.value || null);
    const givenState = Boolean(h.state && h.state !== 'USER_STATE_UNSPECIFIED');
    const state = givenState ? h.state! : u.email.isEmailVerified && passwordHash ? 'USER_STATE_ACTIVE' : 'USER_STATE_INITIAL';
    const row = {
      id: h.userId,
      orgId,
      type: 'human' as const,
      userName: u.userName,
      userNameKey: u.userName.toLowerCase(),
      state,
      data: stripUndefined({ profile: stripUndefined(u.profile), email: stripUndefined(u.email), ...(u.phone ? { phone: stripUndefined(u.phone) } : {}) }),
      passwordHash,
      passwordChangeRequired: Boolean(passwordHash && u.passwordChangeRequired),
      ...stamp,
    };
    if (takenIds.has(h.userId)) {
      await existing('human_user', row, { state: givenState, password: Boolean(passwordHash), otp: u.otpCode || undefined, otpLastStep: u.otpCode ? h.identityServiceOtpLastStep : undefined });
      continue;
    }
    if (!claim('human_user', h.userId, h.user.userName)) continue;
    userRows.push({ ...row, ...histories.take('human_user', h.userId, orgId, h.identityServiceHistory, stamp) });
    if (u.otpCode) otpRows.push({ userId: h.userId, secret: o.sealOtp(u.otpCode), createdAt: at });
    if (u.otpCode && h.identityServiceOtpLastStep !== undefined) otpCheckRows.push({ userId: h.userId, lastStep: h.identityServiceOtpLastStep, changedAt: at });
    for (const link of u.idps ?? []) {
      run.refuse('user_link', `${h.userId}_${link.configId}`, msg('IMPORT-uNsup', 'IDP links are not supported by this service and were not imported'));
    }
    run.imported('humanUserIds', h.userId);
  }
  for (const m of machines) {
    if (m.state === 'USER_STATE_DELETED') {
      run.refuse('machine_user', m.userId, msg('IMPORT-d3l3t', 'deleted users are not imported'));
      continue;
    }
    const givenState = Boolean(m.state && m.state !== 'USER_STATE_UNSPECIFIED');
    const row = {
      id: m.userId,
      orgId,
      type: 'machine' as const,
      userName: m.user.userName,
      userNameKey: m.user.userName.toLowerCase(),
      state: givenState ? m.state! : 'USER_STATE_ACTIVE',
      data: stripUndefined({ name: m.user.name, description: m.user.description, accessTokenType: m.user.accessTokenType ?? 'ACCESS_TOKEN_TYPE_BEARER' }),
      passwordHash: null,
      passwordChangeRequired: false,
      ...stamp,
    };
    if (takenIds.has(m.userId)) {
      await existing('machine_user', row, { state: givenState, password: false });
      continue;
    }
    if (!claim('machine_user', m.userId, m.user.userName)) continue;
    userRows.push({ ...row, ...histories.take('machine_user', m.userId, orgId, m.identityServiceHistory, stamp) });
    run.imported('machineUserIds', m.userId);
  }
  await tx.transfer.insertUsers(userRows);
  // Each created user's source trail, then the import's `user.data.imported`.
  await histories.append(tx);
  if (o.notifyUsers) {
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
  await tx.transfer.insertOtpChecks(otpCheckRows);
}

/** Users' metadata: of this organisation's users (in the document or already here). */
type ExistingUserRow = Pick<UserRow, 'id' | 'type' | 'userName' | 'state' | 'data' | 'passwordHash' | 'passwordChangeRequired'>;
/** Which of the user's fields the document gives (what it leaves out stays as it is here). */
type GivenFields = { state: boolean; password: boolean; otp?: string; otpLastStep?: number };

/** The document's user, when its id is taken here: left, refused or overwritten by the conflict policy. */
async function existingUser(tx: Repositories, run: OrgImport, o: UserImportOptions, type: string, row: ExistingUserRow, given: GivenFields): Promise<void> {
  const { orgId } = run;
  const here = await tx.users.get(row.id);
  // Not this user: a removed user's id, or one of another organisation or kind; refused under every policy.
  if ((!here || here.orgId !== orgId || here.type !== row.type) && run.policy !== 'REPORT') {
    return run.clash(
      type,
      row.id,
      msg('COMMAND-ziuna', `Errors.User.AlreadyExisting: the id is ${here ? `a ${here.type} user of organisation ${here.orgId}` : "a removed user's, or another of the document's"} here`),
    );
  }
  if (!run.exists(type, row.id, msg('COMMAND-ziuna', 'Errors.User.AlreadyExisting')) || !here) return;
  if (here.userName !== row.userName) {
    return run.clash(type, row.id, msg('IMPORT-usr4m', `the user is named "${here.userName}" here; an import does not rename a user`));
  }
  if (!(await run.mayChangeUser(tx, type, row.id, row.id))) return;
  // What the document leaves out (a state, a password, a TOTP secret) stays as it is here. A TOTP
  // secret the document brings replaces this one (a second factor set up at a sync's source); the
  // event names the field, never the secret.
  const otpHere = given.otp === undefined ? undefined : await tx.logins.otpSecret(row.id);
  const pick = (u: typeof row, otp: string | undefined) => ({
    data: u.data,
    ...(given.state ? { state: u.state } : {}),
    ...(given.password ? { passwordHash: u.passwordHash, passwordChangeRequired: u.passwordChangeRequired } : {}),
    ...(given.otp === undefined ? {} : { otp: otp ?? null }),
  });
  await run.overwrite(tx, {
    type,
    id: row.id,
    aggregate: [USER_AGGREGATE, row.id],
    eventType: `user.${row.type}.changed`,
    current: pick(here, otpHere === undefined ? undefined : o.openOtp?.(otpHere)),
    wanted: pick(row, given.otp),
    stateEvent: (to, from) => userStateEvent(to, from) ?? `user.${row.type}.changed`,
    apply: async ({ otp, ...change }, at) => {
      if (typeof otp === 'string') {
        if (otpHere !== undefined) await tx.logins.removeOtpSecret(row.id);
        await tx.logins.addOtpSecret(row.id, o.sealOtp(otp), at.changedAt);
      }
      await tx.users.change(row.id, change, at.sequence, at.changedAt);
      // Unlocked: the failed checks the lockout policy counted are forgotten, as UnlockUser does.
      if (here.state === 'USER_STATE_LOCKED' && change.state === 'USER_STATE_ACTIVE') await tx.logins.clearFailures(row.id);
    },
  });
  // The source's last accepted TOTP code stays spent here (a sync's round after a sign-in there). A
  // replay guard only moves forward and is not a field of the user: raised under OVERWRITE, with no
  // event of its own, as a sign-in's check raises it with the check's event.
  if (run.policy === 'OVERWRITE' && given.otpLastStep !== undefined) {
    const stepHere = await tx.logins.lastOtpStep(row.id);
    if (stepHere === undefined || stepHere < given.otpLastStep) await tx.logins.setLastOtpStep(row.id, given.otpLastStep, run.at);
  }
}

export async function importUserMetadata(tx: Repositories, metadata: NonNullable<DataOrg['userMetadata']>, run: OrgImport): Promise<void> {
  const { orgId } = run;
  for (const m of metadata) {
    const id = `${m.id}_${m.key}`;
    const user = await tx.users.get(m.id ?? '');
    if (!user || user.orgId !== orgId) {
      run.refuse('user_metadata', id, msg('META-ncnoQ', `Errors.User.NotFound: ${m.id} is no user of organisation ${orgId}`));
      continue;
    }
    if (!(await run.mayChangeUser(tx, 'user_metadata', id, user.id))) continue;
    const value = Buffer.from(m.value.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('base64');
    const here = await tx.userMetadata.get(user.id, m.key);
    if (here) {
      if (!run.exists('user_metadata', id, msg('META-4lr3X', 'Errors.Metadata.AlreadyExists'))) continue;
      await run.overwrite(tx, {
        type: 'user_metadata',
        id,
        aggregate: [USER_AGGREGATE, user.id],
        eventType: 'user.metadata.set',
        payload: { key: m.key },
        current: { value: here.value },
        wanted: { value },
        apply: (_, at) => tx.userMetadata.upsert({ ...here, value, sequence: at.sequence, changedAt: at.changedAt }),
      });
      continue;
    }
    await tx.userMetadata.upsert({ userId: user.id, key: m.key, value, orgId, ...run.stamp });
    run.imported('userMetadata', { userId: user.id, key: m.key }, id);
  }
}

/** Users' links to identity providers: the organisation's own providers or the instance's. */
export async function importUserLinks(tx: Repositories, links: NonNullable<DataOrg['userLinks']>, run: OrgImport): Promise<void> {
  const { orgId } = run;
  for (const l of links) {
    const id = `${l.userId}_${l.idpId}_${l.providedUserId}`;
    const user = await tx.users.get(l.userId);
    if (!user || user.orgId !== orgId || user.type !== 'human') {
      run.refuse('user_link', id, msg('COMMAND-1M8fa', `Errors.User.NotFound: ${l.userId} is no human user of organisation ${orgId}`));
      continue;
    }
    if (!(await run.mayChangeUser(tx, 'user_link', id, user.id))) continue;
    const idp = await tx.idps.get(l.idpId);
    if (!idp || (idp.ownerId !== orgId && idp.ownerType !== 'IDP_OWNER_TYPE_SYSTEM')) {
      run.refuse('user_link', id, msg('COMMAND-39Kd9', `Errors.IDPConfig.NotExisting: ${l.idpId} is no identity provider of organisation ${orgId} or of the instance`));
      continue;
    }
    const here = await tx.idpLinks.get(l.idpId, l.providedUserId);
    if (here) {
      // A link has nothing to overwrite: the same one is left as it is; one of another user is refused.
      if (run.exists('user_link', id, msg('COMMAND-4Jk3l', 'Errors.User.ExternalIDP.AlreadyExists'))) {
        if (here.userId === l.userId) run.unchanged('user_link', id);
        else run.clash('user_link', id, msg('COMMAND-4Jk3l', `Errors.User.ExternalIDP.AlreadyExists: the external user is linked to ${here.userId} here`));
      }
      continue;
    }
    await tx.idpLinks.insert({ idpId: l.idpId, externalUserId: l.providedUserId, userId: l.userId, orgId, externalUserName: l.providedUserName || l.providedUserId, createdAt: run.at });
    run.imported('userLinks', { userId: l.userId, externalUserId: l.providedUserId, displayName: l.providedUserName || l.providedUserId, idpId: l.idpId }, id);
  }
}

/** The event DeactivateUser, ReactivateUser, LockUser or UnlockUser appends for a change of state (domain/users/state.ts). */
function userStateEvent(to: string, from: string): string | undefined {
  if (to === 'USER_STATE_INACTIVE') return 'user.deactivated';
  if (to === 'USER_STATE_LOCKED') return 'user.locked';
  if (to === 'USER_STATE_ACTIVE') return from === 'USER_STATE_LOCKED' ? 'user.unlocked' : 'user.reactivated';
  return undefined;
}
