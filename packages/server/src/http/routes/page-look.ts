/**
 * What the login pages take from an organisation's policies: colours (label policy), links
 * (privacy policy), and, for the pages a mail leads to, where to continue when no application is
 * waiting (the login policy's `defaultRedirectUri`, as ZITADEL's login). Before a user is known the
 * organisation is the application's; after, the user's.
 */
import { label } from '../../domain/policies/label.js';
import { login } from '../../domain/policies/login.js';
import { privacy } from '../../domain/policies/privacy.js';
import type { Repositories } from '../../store/store.js';
import { isUnstorableText } from '../../domain/unstorable-text.js';
import type { PageLook } from './oidc-ui-pages.js';

/** A user id from a link may be any text; one no row can hold is nobody (PostgreSQL refuses to compare it). */
const userOf = async (read: Repositories, userId: string) => (userId && !isUnstorableText(userId) ? read.users.get(userId) : undefined);

export async function pageLook(read: Repositories, instanceId: string, orgId: string): Promise<PageLook> {
  const [l, p] = await Promise.all([label.effective(read, instanceId, orgId), privacy.effective(read, instanceId, orgId)]);
  return { label: l, privacy: p };
}

/** The look of the user's organisation (the instance's when the user is unknown). */
export async function userPageLook(read: Repositories, instanceId: string, userId: string): Promise<PageLook> {
  const user = await userOf(read, userId);
  return pageLook(read, instanceId, user?.orgId ?? instanceId);
}

/** For a page a mail leads to: the user's organisation's look and its `defaultRedirectUri`, if set. */
export async function mailPageContext(read: Repositories, instanceId: string, userId: string): Promise<{ look: PageLook; continueTo?: string }> {
  const user = await userOf(read, userId);
  const orgId = user?.orgId ?? instanceId;
  const [look, policy] = await Promise.all([pageLook(read, instanceId, orgId), login.effective(read, instanceId, orgId)]);
  return { look, ...(policy.defaultRedirectUri ? { continueTo: policy.defaultRedirectUri } : {}) };
}
