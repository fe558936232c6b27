/**
 * What an incremental export reports as removed (changes.ts, issue 51): each event that removes a
 * resource, read as the resource's kind and the ids a target needs to remove it through the API
 * (`identity-transfer sync` calls the management API's DELETE for each kind, by these names).
 *
 * One table, by event type, so that a new kind of removal is one line here (and one path in the
 * sync's table). Cascades are left out on purpose, except users and user grants (the organisation
 * removed with its users, a grant removed with its project): a cascade follows from a removal that
 * is reported, and the target's own cascade does the same there. A removed organisation is
 * reported by itself (`orgRemoved`), without what went with it. A resource removed and then
 * brought back (`restoredBy`) is not reported: the document carries it as it is now.
 */
import { MESSAGE_TYPE_BY_SEGMENT, MESSAGE_TYPES } from '../texts/message-text.js';

/** A removed resource: its kind and its ids, by the API's path parameter names. */
export type Removal = { kind: string } & Record<string, string>;

interface RemovalEvent {
  aggregateId: string;
  type: string;
  payload: Record<string, unknown>;
}

/** The organisation's own removal (the org aggregate's `org.removed`). */
export const ORG_REMOVED = 'org.removed';

const text = (v: unknown) => (typeof v === 'string' ? v : '');

/** A message text's path segment (ZITADEL's, as in http/routes/message-texts.ts), by its type. */
const MESSAGE_SEGMENT: Record<string, string> = {
  [MESSAGE_TYPES.verifyEmail]: 'verifyemail',
  ...Object.fromEntries(Object.entries(MESSAGE_TYPE_BY_SEGMENT).map(([segment, type]) => [type, segment])),
};

type Extract = (e: RemovalEvent) => Removal | undefined;

/**
 * Each removal's event type → the resource it removed, and the event types that bring the same
 * resource back (a role key, a member, a domain, a key of metadata added again: the same extractor
 * names the same resource from their payloads). Ids that are never given twice (projects,
 * applications, keys, tokens, users, grants) have none.
 */
const byType: Record<string, { of: Extract; addedBy?: string[] }> = {
  'user.removed': { of: (e) => ({ kind: 'user', userId: e.aggregateId }) },
  'user.cascade.removed': { of: (e) => ({ kind: 'user', userId: e.aggregateId }) },
  'user.grant.removed': { of: (e) => ({ kind: 'user_grant', userId: text(e.payload.userId), grantId: e.aggregateId }) },
  'user.grant.cascade.removed': { of: (e) => ({ kind: 'user_grant', userId: text(e.payload.userId), grantId: e.aggregateId }) },
  'user.metadata.removed': { of: (e) => ({ kind: 'user_metadata', userId: e.aggregateId, key: text(e.payload.key) }), addedBy: ['user.metadata.set'] },
  'user.machine.key.removed': { of: (e) => ({ kind: 'machine_key', userId: e.aggregateId, keyId: text(e.payload.keyId) }) },
  'user.personal.access.token.removed': { of: (e) => ({ kind: 'personal_access_token', userId: e.aggregateId, tokenId: text(e.payload.tokenId) }) },
  'user.machine.secret.removed': { of: (e) => ({ kind: 'machine_secret', userId: e.aggregateId }), addedBy: ['user.machine.secret.set'] },
  // Back once set up again (verified): one only being set up is no second factor, and the target's goes.
  'user.human.mfa.otp.removed': { of: (e) => ({ kind: 'otp', userId: e.aggregateId }), addedBy: ['user.human.mfa.otp.verified'] },
  'user.human.externalidp.removed': {
    of: (e) => ({ kind: 'idp_link', userId: e.aggregateId, idpId: text(e.payload.idpConfigId), linkedUserId: text(e.payload.userId) }),
    addedBy: ['user.human.externalidp.added'],
  },
  'project.removed': { of: (e) => ({ kind: 'project', projectId: e.aggregateId }) },
  'project.role.removed': { of: (e) => ({ kind: 'project_role', projectId: e.aggregateId, roleKey: text(e.payload.key) }), addedBy: ['project.role.added'] },
  'project.member.removed': { of: (e) => ({ kind: 'project_member', projectId: e.aggregateId, userId: text(e.payload.userId) }), addedBy: ['project.member.added'] },
  'project.application.removed': { of: (e) => ({ kind: 'app', projectId: e.aggregateId, appId: text(e.payload.appId) }) },
  'project.application.key.removed': { of: (e) => ({ kind: 'app_key', projectId: e.aggregateId, appId: text(e.payload.appId), keyId: text(e.payload.keyId) }) },
  'project.grant.removed': { of: (e) => ({ kind: 'project_grant', projectId: e.aggregateId, grantId: text(e.payload.grantId) }) },
  'project.grant.member.removed': {
    of: (e) => ({ kind: 'project_grant_member', projectId: e.aggregateId, grantId: text(e.payload.grantId), userId: text(e.payload.userId) }),
    addedBy: ['project.grant.member.added'],
  },
  'org.member.removed': { of: (e) => ({ kind: 'org_member', userId: text(e.payload.userId) }), addedBy: ['org.member.added'] },
  'org.idp.config.removed': { of: (e) => ({ kind: 'idp', idpId: text(e.payload.idpConfigId) }) },
  'org.domain.removed': { of: (e) => ({ kind: 'org_domain', domain: text(e.payload.domain) }), addedBy: ['org.domain.added'] },
  'org.customtext.login.removed': { of: (e) => ({ kind: 'login_texts', language: text(e.payload.language) }), addedBy: ['org.customtext.login.set'] },
  // Invite-user texts have no path of their own to reset them by (message-text.ts): not reported.
  'org.customtext.template.removed': {
    of: (e) => (MESSAGE_SEGMENT[text(e.payload.template)] ? { kind: 'message_text', messageType: MESSAGE_SEGMENT[text(e.payload.template)]!, language: text(e.payload.language) } : undefined),
    addedBy: ['org.customtext.set'],
  },
};

/** Event type → the removal type whose resource it brings back. */
const restoring = new Map(Object.entries(byType).flatMap(([removal, { addedBy }]) => (addedBy ?? []).map((type) => [type, removal] as const)));

const ORG_POLICY_RESET = /^org\.policy\.(.+)\.removed$/;
const ORG_POLICY_ADDED = /^org\.policy\.(.+)\.added$/;

/** The resource an event removed, or undefined when it removed none (or one that is not reported). */
export function removalOf(e: RemovalEvent): Removal | undefined {
  const entry = byType[e.type];
  if (entry) return entry.of(e);
  // An organisation's policy reset to the instance's: its management path, `password/complexity` for `password.complexity`.
  const policy = ORG_POLICY_RESET.exec(e.type)?.[1];
  return policy ? { kind: 'policy', policy: policy.replaceAll('.', '/') } : undefined;
}

/** The resource an event brings back after its removal (the same resource as `removalOf` names), if any. */
export function restoredBy(e: RemovalEvent): Removal | undefined {
  const removal = restoring.get(e.type);
  if (removal) return byType[removal]!.of(e);
  const policy = ORG_POLICY_ADDED.exec(e.type)?.[1];
  return policy ? { kind: 'policy', policy: policy.replaceAll('.', '/') } : undefined;
}

/** The same resource, for a map of what was removed. */
export const removalKey = (r: Removal): string => JSON.stringify(Object.entries(r).sort(([a], [b]) => a.localeCompare(b)));
