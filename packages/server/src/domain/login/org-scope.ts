/**
 * ZITADEL's organisation scopes at sign-in: `urn:zitadel:iam:org:id:{orgId}` and
 * `urn:zitadel:iam:org:domain:primary:{domain}` (parsed by oidc/scopes.ts `requestedOrg`) admit
 * only users of that organisation — ZITADEL refuses another organisation's user with
 * `Errors.User.NotAllowedOrg` ("EVENT-fJe2a"). Checked at every authorization, whichever way the
 * person signed in (password, identity provider, an existing session): oidc/provider.ts gives a
 * refused user no grant, and the consent step shows the refusal (http/routes/oidc-ui.ts). A machine
 * user's token drops such a scope instead (provider.ts), as ZITADEL's does.
 */
import type { Repositories } from '../../store/store.js';

export interface OrgScopeRefusal {
  /** ZITADEL's error key. */
  id: 'Errors.User.NotAllowedOrg';
  /** For the person, with what to do next. */
  message: string;
}

export async function orgScopeRefusal(read: Repositories, requested: { orgId?: string; primaryDomain?: string } | undefined, userId: string): Promise<OrgScopeRefusal | undefined> {
  if (!requested?.orgId && !requested?.primaryDomain) return undefined;
  const user = await read.users.get(userId);
  const org = user ? await read.orgs.get(user.orgId) : undefined;
  const idMatches = !requested.orgId || requested.orgId === org?.id;
  // Primary domains are unique and compared ignoring case, as everywhere else.
  const domainMatches = !requested.primaryDomain || requested.primaryDomain.toLowerCase() === org?.primaryDomain.toLowerCase();
  if (org && idMatches && domainMatches) return undefined;
  const wanted = await requestedOrgName(read, requested);
  return {
    id: 'Errors.User.NotAllowedOrg',
    message: `This application accepts only accounts of ${wanted}. Sign out, then sign in with an account of that organisation.`,
  };
}

/** How the page names the organisation asked for: its name if it exists, else what the scope said. */
async function requestedOrgName(read: Repositories, requested: { orgId?: string; primaryDomain?: string }): Promise<string> {
  const org = requested.orgId ? await read.orgs.get(requested.orgId) : await read.orgs.getByPrimaryDomain(requested.primaryDomain!.toLowerCase());
  if (org) return `the organisation ${org.name}`;
  return requested.orgId ? `the organisation ${requested.orgId}` : `the organisation of ${requested.primaryDomain}`;
}
