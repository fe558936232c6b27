/**
 * Re-sealing every secret at rest with the operator's current key, after the key was rotated
 * (`npm run secrets:reseal`, src/commands/reseal-secrets.ts). Each kind of sealed value registers its
 * re-sealer here; a re-sealer opens what it can with the current or an earlier key
 * (ENCRYPTION_KEYS_PREVIOUS), seals again with the current key, and counts what it changed.
 */
import { resealIdpClientSecrets } from '../domain/idps/commands.js';
import { resealSmtpPasswords } from '../domain/notifications/smtp-providers.js';
import { resealPendingOtpSecrets } from '../domain/users/otp-enrolment.js';
import { resealOtpSecrets } from '../domain/users/otp-secret.js';
import { resealKeys } from '../oidc/keys.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { Store } from '../store/store.js';

type Resealer = (store: Store, secrets: SecretBox) => Promise<number>;

const RESEALERS: Record<string, Resealer> = {
  'OIDC signing keys and cookie secrets': (store, secrets) => resealKeys(store, secrets),
  'SMTP passwords': (store, secrets) => resealSmtpPasswords(store, secrets),
  'TOTP secrets': (store, secrets) => resealOtpSecrets(store, secrets),
  'TOTP secrets being set up': (store, secrets) => resealPendingOtpSecrets(store, secrets),
  "OIDC identity providers' client secrets": (store, secrets) => resealIdpClientSecrets(store, secrets),
};

/** Re-seals every sealed value not sealed with the current key; how many, by kind. */
export async function resealSecrets(store: Store, secrets: SecretBox): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [what, reseal] of Object.entries(RESEALERS)) counts[what] = await reseal(store, secrets);
  return counts;
}
