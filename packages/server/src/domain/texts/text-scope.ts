/**
 * Whose texts a call works on: the instance's (admin API, the default for every organisation) or
 * an organisation's (management API, its users only). The owner decides the aggregate the events
 * go to and the permissions, as in ZITADEL (`iam.policy.*` / `policy.*`).
 */
import type { RequestContext } from '../context.js';

export interface TextScope {
  ownerId: string;
  aggregate: 'instance' | 'org';
  read: string;
  write: string;
  delete: string;
}
export const instanceTexts = (ctx: RequestContext): TextScope => ({ ownerId: ctx.instanceId, aggregate: 'instance', read: 'iam.policy.read', write: 'iam.policy.write', delete: 'iam.policy.delete' });
export const orgTexts = (ctx: RequestContext): TextScope => ({ ownerId: ctx.orgId, aggregate: 'org', read: 'policy.read', write: 'policy.write', delete: 'policy.delete' });
