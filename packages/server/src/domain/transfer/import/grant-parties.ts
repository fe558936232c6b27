/**
 * What a project grant's dependents — its members and the user grants given through it — may be
 * listed under in a document (issue 30). ZITADEL lists user grants under their owner, which for a
 * grant given through a project grant is the *granted* organisation, and documents built by hand or
 * by other tools list them, and the grant's members, under either organisation. Both are accepted;
 * what is stored is the same either way (a user grant belongs to the granted organisation, as when
 * the API gives it; a member's resource owner is the granted organisation).
 */
export interface GrantParties {
  projectId: string;
  /** The project's organisation. */
  orgId: string;
  grantedOrgId: string;
}

/** The grant is of `projectId`, and `listedUnder` is one of its two organisations. */
export function listedUnderEitherOrg(grant: GrantParties, projectId: string, listedUnder: string): boolean {
  return grant.projectId === projectId && (listedUnder === grant.orgId || listedUnder === grant.grantedOrgId);
}
