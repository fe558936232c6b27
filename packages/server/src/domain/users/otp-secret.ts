/**
 * Users' TOTP secrets at rest: sealed with the operator's key (secrets/secret-box.ts) like every other
 * secret the store holds, opened only to check a code (domain/login/totp.ts) and for an export with
 * `withOtp`. Versions before 0.2 stored them in plain base32: such a row still opens (as itself) and
 * the next start seals it (sealPlainOtpSecrets, from server.ts).
 */
import type { SecretBox } from '../../secrets/secret-box.js';
import type { Store } from '../../store/store.js';

const PURPOSE = 'user.otp-secret';
// What every sealed value starts with (secret-box.ts), for finding the plain ones in SQL.
const SEALED_PREFIX = 'sb1.';

export const sealOtpSecret = (box: SecretBox, base32: string) => box.seal(base32, PURPOSE);

/** The base32 secret of a stored value (sealed, or plain from an earlier version). */
export const openOtpSecret = (box: SecretBox, stored: string) => (box.isSealed(stored) ? box.openText(stored, PURPOSE) : stored);

/** Seals the secrets an earlier version stored in plain text; how many. */
export async function sealPlainOtpSecrets(store: Store, box: SecretBox): Promise<number> {
  let count = 0;
  for (;;) {
    const rows = await store.read.logins.plainOtpSecrets(SEALED_PREFIX, 500);
    if (rows.length === 0) return count;
    await store.transaction(async (tx) => {
      for (const row of rows) await tx.logins.replaceOtpSecret(row.userId, row.secret, sealOtpSecret(box, row.secret));
    });
    count += rows.length;
  }
}

/** Re-seals secrets sealed with an earlier operator key (commands/resealers.ts). */
export async function resealOtpSecrets(store: Store, box: SecretBox): Promise<number> {
  let count = await sealPlainOtpSecrets(store, box);
  let after = '';
  for (;;) {
    const rows = await store.read.logins.otpSecretsPage(after, 500);
    if (rows.length === 0) return count;
    const stale = rows.filter((r) => box.isStale(r.secret));
    if (stale.length) {
      await store.transaction(async (tx) => {
        for (const row of stale) await tx.logins.replaceOtpSecret(row.userId, row.secret, sealOtpSecret(box, openOtpSecret(box, row.secret)));
      });
    }
    count += stale.length;
    after = rows[rows.length - 1].userId;
  }
}
