/**
 * What application keys (domain/apps/app-keys.ts) and machine users' keys
 * (domain/users/machine-keys.ts) share: the key type, the expiration rule and the RSA pair made
 * on the server, whose private key is returned once in a key file and never stored.
 */
import { generateKeyPair } from 'node:crypto';
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
