/**
 * Secrets at rest (SMTP passwords, the authorization server's private keys and cookie secrets):
 * sealed with AES-256-GCM under the operator's key before they reach the store, opened only where
 * they are used. Nothing else in the service encrypts; every sealed column goes through here.
 *
 * A sealed value is `sb1.<key id>.<base64url(iv ‖ tag ‖ ciphertext)>`. The key id (the first 8 hex
 * digits of the key's SHA-256) tells which key sealed it, so a process can hold the current key and
 * earlier ones while secrets are re-sealed after a rotation, and a process started with the wrong
 * key fails with a message naming both ids instead of with "bad decrypt". The purpose string is
 * bound as associated data: a value sealed as an SMTP password cannot be opened as a signing key.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const PREFIX = 'sb1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_BYTES = 32;

export class SecretKeyError extends Error {}

export interface SecretBox {
  /** Id of the key new values are sealed with. */
  readonly keyId: string;
  seal(plain: string | Uint8Array, purpose: string): string;
  open(sealed: string, purpose: string): Buffer;
  openText(sealed: string, purpose: string): string;
  /** True when the value was sealed with an earlier key (re-seal it). */
  isStale(sealed: string): boolean;
  isSealed(value: string): boolean;
}

export function keyIdOf(key: Uint8Array): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** Parses a key as written by the operator: 32 bytes in base64, base64url or hex. */
export function parseKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  const candidates = [/^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : undefined, Buffer.from(trimmed, 'base64')];
  const key = candidates.find((c) => c && c.length === KEY_BYTES);
  if (!key) {
    throw new SecretKeyError(`${source}: an encryption key must be ${KEY_BYTES} random bytes, written as base64 or 64 hex digits (e.g. \`openssl rand -base64 32\`)`);
  }
  return key;
}

export function generateKeyText(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}

/** The current key seals; it and the earlier ones open. */
export function createSecretBox(current: Uint8Array, earlier: Uint8Array[] = []): SecretBox {
  if (current.length !== KEY_BYTES) throw new SecretKeyError(`an encryption key must be ${KEY_BYTES} bytes`);
  const keys = new Map<string, Buffer>();
  for (const key of [current, ...earlier]) keys.set(keyIdOf(key), Buffer.from(key));
  const keyId = keyIdOf(current);
  const currentKey = Buffer.from(current);

  const parse = (sealed: string) => {
    const parts = sealed.split('.');
    if (parts.length !== 3 || parts[0] !== PREFIX) throw new SecretKeyError('not a sealed secret');
    return { kid: parts[1]!, body: Buffer.from(parts[2]!, 'base64url') };
  };

  const open = (sealed: string, purpose: string): Buffer => {
    const { kid, body } = parse(sealed);
    const key = keys.get(kid);
    if (!key) {
      throw new SecretKeyError(
        `a stored secret was sealed with encryption key ${kid}, but this process has key ${keyId}` +
          (keys.size > 1 ? ` (and ${[...keys.keys()].filter((k) => k !== keyId).join(', ')})` : '') +
          `: start it with the key the secret was sealed with (ENCRYPTION_KEY / ENCRYPTION_KEY_FILE, earlier keys in ENCRYPTION_KEYS_PREVIOUS)`,
      );
    }
    if (body.length < IV_BYTES + TAG_BYTES) throw new SecretKeyError('a stored secret is truncated');
    const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(purpose, 'utf8'));
    decipher.setAuthTag(body.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(body.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    } catch {
      throw new SecretKeyError(`a stored secret (${purpose}) does not open with key ${kid}: it was altered or sealed for another purpose`);
    }
  };

  return {
    keyId,
    seal(plain, purpose) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', currentKey, iv);
      cipher.setAAD(Buffer.from(purpose, 'utf8'));
      const data = Buffer.concat([cipher.update(typeof plain === 'string' ? Buffer.from(plain, 'utf8') : plain), cipher.final()]);
      return `${PREFIX}.${keyId}.${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64url')}`;
    },
    open,
    openText: (sealed, purpose) => open(sealed, purpose).toString('utf8'),
    isStale: (sealed) => parse(sealed).kid !== keyId,
    isSealed: (value) => value.startsWith(`${PREFIX}.`),
  };
}

/** A box with a fresh random key: tests and throwaway instances. */
export function ephemeralSecretBox(): SecretBox {
  return createSecretBox(randomBytes(KEY_BYTES));
}

let processBox: SecretBox | undefined;
/** One random-key box per process: what apps built without an operator key (tests) share. */
export function processSecretBox(): SecretBox {
  processBox ??= ephemeralSecretBox();
  return processBox;
}
