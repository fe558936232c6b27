/**
 * What the login pages take from an organisation's policies: colours (label policy), links
 * (privacy policy), and, for the pages a mail leads to, where to continue when no application is
 * waiting (the login policy's `defaultRedirectUri`, as ZITADEL's login).
 *
 * Whose they are during a sign-in is the application's project's `privateLabelingSetting`, as in
 * ZITADEL: unspecified → the instance's; ENFORCE_PROJECT_RESOURCE_OWNER_POLICY → the project's
 * organisation's; ALLOW_LOGIN_USER_RESOURCE_OWNER_POLICY → the project's organisation's until the
 * user is known, then the user's organisation's. The pages a mail leads to wear the user's.
 */

import type { Repositories } from '../../store/store.js';
import { type Label, label } from '../policies/label.js';
import { login } from '../policies/login.js';
import { type Privacy, privacy } from '../policies/privacy.js';
import { isUnstorableText } from '../unstorable-text.js';

/**
 * The look an organisation gave its login pages: colours from its label policy, links from its
 * privacy policy. Colours are hex colours by the policy's validation. Rendered by ui/layout.ts.
 */
export interface PageLook {
  label: Label;
  privacy: Privacy;
}

/** A user id from a link may be any text; one no row can hold is nobody (PostgreSQL refuses to compare it). */
const userOf = async (read: Repositories, userId: string) => (userId && !isUnstorableText(userId) ? read.users.get(userId) : undefined);

export async function pageLook(read: Repositories, instanceId: string, orgId: string): Promise<PageLook> {
  const [l, p] = await Promise.all([label.effective(read, instanceId, orgId), privacy.effective(read, instanceId, orgId)]);
  return { label: l, privacy: p };
}

/** Whose look a sign-in page for this application wears (the user, once known: `userId`). */
export async function signInLookOrg(read: Repositories, instanceId: string, app: { projectId: string } | undefined, userId?: string): Promise<string> {
  const project = app ? await read.projects.get(app.projectId) : undefined;
  switch (project?.privateLabelingSetting) {
    case 'PRIVATE_LABELING_SETTING_ENFORCE_PROJECT_RESOURCE_OWNER_POLICY':
      return project.orgId;
    case 'PRIVATE_LABELING_SETTING_ALLOW_LOGIN_USER_RESOURCE_OWNER_POLICY':
      return (userId ? (await userOf(read, userId))?.orgId : undefined) ?? project.orgId;
    default:
      return instanceId;
  }
}

export async function signInLook(read: Repositories, instanceId: string, app: { projectId: string } | undefined, userId?: string): Promise<PageLook> {
  return pageLook(read, instanceId, await signInLookOrg(read, instanceId, app, userId));
}

/** For a page a mail leads to: the user's organisation's look and its `defaultRedirectUri`, if set. */
export async function mailPageContext(read: Repositories, instanceId: string, userId: string): Promise<{ look: PageLook; continueTo?: string }> {
  const user = await userOf(read, userId);
  const orgId = user?.orgId ?? instanceId;
  const [look, policy] = await Promise.all([pageLook(read, instanceId, orgId), login.effective(read, instanceId, orgId)]);
  return { look, ...(policy.defaultRedirectUri ? { continueTo: policy.defaultRedirectUri } : {}) };
}

/** For a page no application or user is known on (`/`, `/ui/login`, an expired sign-in): the instance's look and `defaultRedirectUri`. */
export async function startPageContext(read: Repositories, instanceId: string): Promise<{ look: PageLook; continueTo?: string }> {
  const [look, policy] = await Promise.all([pageLook(read, instanceId, instanceId), login.effective(read, instanceId, instanceId)]);
  return { look, ...(policy.defaultRedirectUri ? { continueTo: policy.defaultRedirectUri } : {}) };
}
