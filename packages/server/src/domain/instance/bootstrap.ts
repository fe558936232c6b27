/**
 * First start on an empty store: the instance, its default organisation, a machine user
 * holding IAM_OWNER, and a personal access token for it. Runs under the store's exclusive lock,
 * so two processes starting at once on one database bootstrap exactly one instance; later
 * starts find the instance and create nothing.
 */
import { generateToken, hashToken, NO_EXPIRY } from '../../auth/tokens.js';
import type { Store } from '../../store/store.js';
import { newId } from '../ids.js';
import { orgPrimaryDomain } from '../orgs/domain.js';

export interface BootstrapResult {
  instanceId: string;
  defaultOrgId: string;
  /** Set only by the start that created the instance: the admin's token, shown once. */
  created?: { adminUserId: string; token: string };
}

export const DEFAULT_ORG_NAME = 'Default';
export const ADMIN_USER_NAME = 'admin';

export interface BootstrapOptions {
  /**
   * Runs once the store is known to be empty, before anything is created; what it throws ends the
   * bootstrap with nothing written (main.ts: the admin token file must not exist yet).
   */
  beforeCreate?: () => void;
}

export async function bootstrapInstance(store: Store, instanceDomain: string, options: BootstrapOptions = {}): Promise<BootstrapResult> {
  // The lock keeps concurrent starts from racing on PostgreSQL; the existence check inside the
  // write transaction (BEGIN IMMEDIATE on SQLite) does the same for processes sharing a SQLite file.
  return store.exclusive(async () => {
    const instanceId = newId();
    const orgId = newId();
    const adminUserId = newId();
    const tokenId = newId();
    const token = generateToken();
    const existing = await store.transaction(async (tx) => {
      const found = await tx.instance.get();
      if (found) return found;
      options.beforeCreate?.();
      const at = new Date();
      const emit = (aggregateType: string, aggregateId: string, type: string, resourceOwner: string, payload: Record<string, unknown>) =>
        tx.events.append({ aggregateType, aggregateId, type, payload, creator: 'SYSTEM', resourceOwner }, at);

      await emit('instance', instanceId, 'instance.added', instanceId, { defaultOrgId: orgId, domain: instanceDomain });
      await tx.instance.insert({ id: instanceId, defaultOrgId: orgId, domain: instanceDomain, createdAt: at });

      const org = await emit('org', orgId, 'org.added', orgId, { name: DEFAULT_ORG_NAME });
      await tx.orgs.insert({
        id: orgId,
        name: DEFAULT_ORG_NAME,
        nameKey: DEFAULT_ORG_NAME.toLowerCase(),
        state: 'ORG_STATE_ACTIVE',
        primaryDomain: orgPrimaryDomain(DEFAULT_ORG_NAME, instanceDomain),
        sequence: org.sequence,
        createdAt: at,
        changedAt: at,
      });

      const machine = { name: 'Instance administrator', description: 'Created on first start', accessTokenType: 'ACCESS_TOKEN_TYPE_BEARER' };
      await emit('user', adminUserId, 'user.machine.added', orgId, { userName: ADMIN_USER_NAME, ...machine });
      const pat = await emit('user', adminUserId, 'user.personal.access.token.added', orgId, { tokenId, expirationDate: NO_EXPIRY.toISOString() });
      await tx.users.insert({
        id: adminUserId,
        orgId,
        type: 'machine',
        userName: ADMIN_USER_NAME,
        userNameKey: ADMIN_USER_NAME,
        state: 'USER_STATE_ACTIVE',
        data: machine,
        passwordHash: null,
        passwordChangeRequired: false,
        sequence: pat.sequence,
        createdAt: at,
        changedAt: at,
      });
      await tx.tokens.insert({
        id: tokenId,
        userId: adminUserId,
        tokenHash: hashToken(token),
        expiresAt: NO_EXPIRY,
        sequence: pat.sequence,
        createdAt: at,
        changedAt: at,
      });

      const member = await emit('instance', instanceId, 'instance.member.added', instanceId, { userId: adminUserId, roles: ['IAM_OWNER'] });
      await tx.members.insert({
        scopeType: 'instance',
        scopeId: instanceId,
        userId: adminUserId,
        resourceOwner: instanceId,
        roles: ['IAM_OWNER'],
        sequence: member.sequence,
        createdAt: at,
        changedAt: at,
      });
      return undefined;
    });
    if (existing) return { instanceId: existing.id, defaultOrgId: existing.defaultOrgId };
    return { instanceId, defaultOrgId: orgId, created: { adminUserId, token } };
  });
}
