/**
 * What application keys (domain/apps/app-keys.ts) and machine users' keys
 * (domain/users/machine-keys.ts) share: the key type, the expiration rule and the RSA pair made
 * on the server, whose private key is returned once in a key file and never stored.
 */
import { createPublicKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { NO_EXPIRY } from '../auth/tokens.js';
import { invalidArgument } from './errors.js';

export const KEY_TYPES = ['KEY_TYPE_UNSPECIFIED', 'KEY_TYPE_JSON'] as const;
export type KeyType = (typeof KEY_TYPES)[number];

/** ZITADEL's key size for application and machine keys. */
const RSA_BITS = 2048;

/** The expiration asked for (none: 9999-12-31, as ZITADEL), or 400 when it is not in the future. */
export function keyExpiration(input: string | undefined): Date {
  const expiresAt = input ? new Date(input) : NO_EXPIRY;
  if (!(expiresAt.getTime() > Date.now())) throw invalidArgument('DOMAIN-dv3t5', 'Errors.AuthNKey.ExpireBeforeNow: the expiration date must be in the future');
  return expiresAt;
}

const newRsaKeyPair = promisify(generateKeyPair);

/**
 * A new RSA 2048 pair: the public key as SPKI PEM ("PUBLIC KEY", what is stored), the private
 * key as PKCS#1 PEM ("RSA PRIVATE KEY", the form ZITADEL's key files carry, which its client
 * libraries read). Made off the event loop; call it before the transaction, so locks stay short.
 */
export async function newKeyPair(): Promise<{ publicKey: string; privateKey: string }> {
  return newRsaKeyPair('rsa', {
    modulusLength: RSA_BITS,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
}

/** The smallest RSA key accepted from a caller (ZITADEL takes any RSA key; a short one is forgeable). */
const MIN_RSA_BITS = 2048;

const invalidPublicKey = (why: string) => invalidArgument('COMMAND-5F3h1', `Errors.User.Machine.Key.Invalid: invalid publicKey: ${why}`);

/**
 * A public key as ZITADEL's API and documents carry it (base64, standard or URL-safe, of a PEM
 * `PUBLIC KEY`, as ZITADEL's `BytesToPublicKey` reads it) as SPKI PEM, or 400: a caller's own
 * machine key, and the imported machine and application keys. Only an RSA public key of at least 2048 bits:
 * never a private key (from which Node would derive the public one) nor another PEM type.
 */
export function rsaPublicKeyPem(input: string): string {
  const normalised = input.trim().replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(normalised)) throw invalidPublicKey('must be base64');
  const pem = Buffer.from(normalised, 'base64').toString('utf8').trim();
  if (!/^-----BEGIN PUBLIC KEY-----\r?\n[A-Za-z0-9+/=\r\n]+-----END PUBLIC KEY-----$/.test(pem)) {
    throw invalidPublicKey('must be the base64 of a PEM "PUBLIC KEY" block');
  }
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: 'pem' });
  } catch {
    throw invalidPublicKey('the PEM block is not a public key');
  }
  if (key.asymmetricKeyType !== 'rsa') throw invalidPublicKey('must be an RSA key');
  if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS) throw invalidPublicKey(`must have at least ${MIN_RSA_BITS} bits`);
  return key.export({ type: 'spki', format: 'pem' }) as string;
}
