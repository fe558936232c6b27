/**
 * Which writes can change the outcome of authentication: any insert, update or delete on the
 * tables it reads (tokens and their users, memberships, organisations, and the OAuth clients:
 * applications, their keys, machine users' secrets), and on the settings userinfo's kept answers
 * are built from (policies, organisations' domains, projects: oidc/userinfo.ts). Repositories get a `Db`
 * that reports such writes (watch-writes.ts), so every repository method — present or future — that writes one
 * of these tables is seen without having to remember to say so. The store turns the reports of
 * a transaction into one bump of its `authGeneration()` after the COMMIT (auth/auth-cache.ts
 * serves nothing computed under an older generation).
 *
 * The report happens when the query is built. A prepared statement (prepared.ts) is built once,
 * so writes to these tables must not be prepared.
 *
 * One write to `users` is left unwatched on purpose: a sign-in's check moving the user's sequence
 * (logins.moveUserSequence), which changes nothing authentication reads and would otherwise empty
 * every cache at each sign-in.
 */
import type { Tables } from './schema.js';

export function authTables(t: Tables): ReadonlySet<unknown> {
  return new Set<unknown>([t.personalAccessTokens, t.users, t.members, t.orgs, t.oidcApps, t.appKeys, t.machineSecrets, t.policies, t.orgDomains, t.projects]);
}

/** For repositories outside transactions: an autocommitted write would be reported before it is visible. */
export function refuseAuthWrite(): never {
  throw new Error(
    'writes to tokens, users, members, orgs, applications, app keys, machine secrets, policies, org domains or projects must run in store.transaction (the authentication cache is invalidated at commit)',
  );
}
