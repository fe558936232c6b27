/**
 * The identity provider a sign-in goes through, read by the login routes (http/routes/login-*.ts)
 * at each step: it may have been changed, deactivated or removed since the step before.
 */
import type { IdpRow } from '../../store/repositories/idps.js';
import type { Store } from '../../store/store.js';

export type IdentityProvider = IdpRow;

export async function identityProvider(store: Store, idpId: string): Promise<IdentityProvider | undefined> {
  return store.read.idps.get(idpId);
}
