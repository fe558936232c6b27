/**
 * The OIDC application a sign-in is for, by the client id the authorization request names (a
 * machine client, or an id that names nothing, has none). Its organisation decides the login
 * policy, the identity providers offered and, through its project, the pages' look.
 */
import type { Store } from '../../store/store.js';

export async function signInApp(store: Store, clientId: unknown) {
  return typeof clientId === 'string' && clientId ? store.read.oidcApps.byClientId(clientId) : undefined;
}
