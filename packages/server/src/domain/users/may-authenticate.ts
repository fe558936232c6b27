/**
 * Which users may sign in, and whose tokens keep working: the one rule, used by the login
 * (password, authenticator code, identity provider), token refresh, introspection, userinfo and
 * the API's check of OAuth access tokens. As in ZITADEL, an initial user (its e-mail not verified
 * yet, or its password not chosen yet) may sign in and use what it got; a locked, inactive or
 * removed user may not, and its tokens stop working at once. Personal access tokens are a
 * different rule (active machine users only: auth/authenticate.ts).
 */
import type { UserRow } from '../../store/repositories/users.js';
import type { Store } from '../../store/store.js';

const MAY_AUTHENTICATE: ReadonlySet<string> = new Set(['USER_STATE_ACTIVE', 'USER_STATE_INITIAL']);

export function mayAuthenticate(state: string): boolean {
  return MAY_AUTHENTICATE.has(state);
}

/** The user a token or sign-in names, when it may authenticate; undefined otherwise. */
export async function authenticatableUser(store: Store, userId: string): Promise<UserRow | undefined> {
  const user = await store.read.users.get(userId);
  return user && mayAuthenticate(user.state) ? user : undefined;
}
