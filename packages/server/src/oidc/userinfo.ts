/**
 * Userinfo for our access tokens (oidc-provider's own refuses tokens that carry an audience, and
 * every token here does): the token's user, if it may still authenticate, and the claims its
 * scope yields (claims.ts), for the application the token was issued to.
 *
 * A person's app calls it with one token again and again, so what the answer is built from is
 * kept like authentication's results (auth/auth-cache.ts): the token's verification
 * (access-tokens.ts), the user, the application's project, and the settings the claims depend on
 * (an organisation's login-name rules, a project's role assertion). A write to any of their tables
 * in this process is seen at once (store/auth-writes.ts watches them), another process's within
 * the cache's TTL. Roles and metadata, when a scope asks for them, are read every time.
 */
import { AuthCache } from '../auth/auth-cache.js';
import { type LoginNameRules, loginNameRules, loginNamesOf } from '../domain/users/login-names.js';
import { mayAuthenticate } from '../domain/users/may-authenticate.js';
import type { UserRow } from '../store/repositories/users.js';
import type { Store } from '../store/store.js';
import type { AccessTokenReader } from './access-tokens.js';
import { type ClaimsSettings, personClaims } from './claims.js';
import { hasScope } from './scopes.js';

export type UserinfoAnswer = { status: 200; claims: Record<string, unknown> } | { status: 401; error: 'invalid_token' } | { status: 403; error: 'insufficient_scope' };

/** The claims settings from the store, each kept per organisation or project (see above). */
export function cachedClaimsSettings(store: Store, instanceId: string): ClaimsSettings {
  const rules = new AuthCache<LoginNameRules>(store);
  const assertions = new AuthCache<boolean>(store);
  return {
    async preferredLoginName(user) {
      const orgRules = await rules.get(user.orgId, async () => ({ value: await loginNameRules(store.read, instanceId, user.orgId) }));
      return loginNamesOf(user.userName, orgRules).preferredLoginName;
    },
    projectRoleAssertion: (projectId) => assertions.get(projectId, async () => ({ value: !!(await store.read.projects.get(projectId))?.projectRoleAssertion })),
  };
}

export function userinfoAnswerer(deps: { store: Store; instanceId: string; readAccessToken: AccessTokenReader }) {
  const { store, instanceId, readAccessToken } = deps;
  const users = new AuthCache<UserRow | undefined>(store);
  const appProjects = new AuthCache<string | undefined>(store);
  const settings = cachedClaimsSettings(store, instanceId);

  /** The human user who may authenticate; a row is shared by the requests it is kept for (read-only). */
  const personOf = (userId: string) =>
    users.get(userId, async () => {
      const user = await store.read.users.get(userId);
      return user && mayAuthenticate(user.state) && user.type === 'human' ? { value: user } : { uncached: undefined };
    });
  /** The project of the application the token was issued to (a machine user's token has none). */
  const projectOf = (clientId: string) => appProjects.get(clientId, async () => ({ value: clientId ? (await store.read.oidcApps.byClientId(clientId))?.projectId : undefined }));

  return async function answer(token: string | undefined): Promise<UserinfoAnswer> {
    const access = token ? await readAccessToken(token) : undefined;
    if (!access) return { status: 401, error: 'invalid_token' };
    if (!hasScope(access.scope, 'openid')) return { status: 403, error: 'insufficient_scope' };
    const user = await personOf(access.userId);
    if (!user) return { status: 401, error: 'invalid_token' };
    const projectId = await projectOf(access.clientId);
    return { status: 200, claims: await personClaims(store, instanceId, user, { use: 'userinfo', scope: access.scope, projectId }, settings) };
  };
}
