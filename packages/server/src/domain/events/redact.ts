/**
 * The second line of defence of the trail's payloads. No command puts a secret into an event (they
 * record `passwordSet`, `secretGenerated`, `clientSecretChanged` instead; test/events-secrets.test.ts
 * holds every kind of secret to it), but what is read back passes through here anyway: any field
 * whose name ends like a secret (`clientSecret`, `password`, `passwordHash`, `otpCode`, `token`,
 * `privateKey`, …) has its value replaced, however deeply nested. Flags (booleans) stay: they say
 * that something happened, not what it was. Names that only contain such a word (`passwordSet`,
 * `maxPasswordAttempts`, `tokenId`, `publicKey`) are not secrets and stay as well.
 */

export const REDACTED = '[redacted]';

/** How a secret's field name ends, compared without case, `_` and `-` (`client_secret` is `clientsecret`). */
const SECRET_ENDINGS = ['secret', 'password', 'passwd', 'passphrase', 'hash', 'sealed', 'code', 'token', 'privatekey', 'apikey', 'seed', 'credential', 'credentials'];

export function isSecretName(name: string): boolean {
  const key = name.toLowerCase().replace(/[_-]/g, '');
  return SECRET_ENDINGS.some((ending) => key.endsWith(ending));
}

/** A copy of `value` with every secret-named field's value (unless a boolean or empty) replaced by `REDACTED`. */
export function redactSecrets<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item)) as T;
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value as Record<string, unknown>)) {
    const hidden = isSecretName(name) && typeof inner !== 'boolean' && inner !== null && inner !== undefined;
    copy[name] = hidden ? REDACTED : redactSecrets(inner);
  }
  return copy as T;
}
