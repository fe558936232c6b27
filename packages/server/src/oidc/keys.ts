/**
 * Key material of the authorization server, kept in the store so that every process on one
 * store signs and verifies alike: RS256 signing keys (private JWKs) and cookie-signing secrets.
 * Made on the first start (under the store's exclusive lock, so concurrent first starts agree);
 * rotated with `rotateKeys` (see docs/oidc.md): the new key signs, the old one stays published
 * until it expires, so tokens it signed still verify. Running processes follow the store through
 * a `KeyRing`: server.ts re-reads the keys periodically, and a token signed by a key this
 * process does not know yet makes it re-read them at once.
 *
 * At rest each key's material is sealed with the operator's key (`{"sealed":"sb1.…"}`, see
 * secrets/secret-box.ts; the purpose binds it to its kind and id). Plain material written by an
 * earlier version is still read, and sealed by the next start (`loadOrCreateKeys`); material
 * sealed with an earlier operator key opens while that key is in ENCRYPTION_KEYS_PREVIOUS and is
 * moved to the current key by `resealKeys` (`npm run secrets:reseal`).
 */
import { randomBytes } from 'node:crypto';
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  errors as joseErrors,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  type JWK,
  type JWTVerifyOptions,
} from 'jose';
import type { SecretBox } from '../secrets/secret-box.js';
import type { OidcKeyRow } from '../store/repositories/oidc.js';
import type { Repositories, Store } from '../store/store.js';

export interface OidcKeys {
  /** Private signing JWKs, newest (the one that signs) first. */
  signing: JWK[];
  /** Cookie secrets, newest (the one that signs) first. */
  cookie: string[];
}

async function newSigningKey(): Promise<{ id: string; material: KeyMaterial }> {
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig' };
  jwk.kid = await calculateJwkThumbprint(jwk);
  return { id: jwk.kid, material: jwk };
}

function newCookieSecret(): { id: string; material: { secret: string } } {
  const secret = randomBytes(32).toString('base64url');
  return { id: `cookie-${randomBytes(8).toString('hex')}`, material: { secret } };
}

type KeyKind = 'signing' | 'cookie';
type KeyMaterial = Record<string, unknown>;

const purposeOf = (kind: string, id: string) => `oidc_keys:${kind}:${id}`;
const isSealed = (material: KeyMaterial): material is { sealed: string } => typeof material.sealed === 'string';

function sealMaterial(secrets: SecretBox, kind: string, id: string, material: KeyMaterial): KeyMaterial {
  return { sealed: secrets.seal(JSON.stringify(material), purposeOf(kind, id)) };
}

/** The plain material of a stored key: opened when sealed, as it is when an earlier version wrote it in plain text. */
function openMaterial(secrets: SecretBox, row: OidcKeyRow): KeyMaterial {
  if (!isSealed(row.material)) return row.material;
  return JSON.parse(secrets.openText(row.material.sealed, purposeOf(row.kind, row.id))) as KeyMaterial;
}

async function insertKey(tx: Repositories, secrets: SecretBox, kind: KeyKind, key: { id: string; material: KeyMaterial }, now: Date) {
  await tx.oidc.keys.insert({ id: key.id, kind, material: sealMaterial(secrets, kind, key.id, key.material), createdAt: now, expiresAt: null });
}

export async function readKeys(store: Store, secrets: SecretBox, now: Date): Promise<OidcKeys> {
  const [signing, cookie] = await Promise.all([store.read.oidc.keys.live('signing', now), store.read.oidc.keys.live('cookie', now)]);
  return {
    signing: signing.map((k) => openMaterial(secrets, k) as JWK),
    cookie: cookie.map((k) => String(openMaterial(secrets, k).secret)),
  };
}

/**
 * Seals every key whose material is plain (an earlier version's) or sealed with an earlier
 * operator key, with the current one. Returns how many it re-sealed.
 */
export async function resealKeys(store: Store, secrets: SecretBox, which: 'plain' | 'plain-or-stale' = 'plain-or-stale'): Promise<number> {
  return store.transaction(async (tx) => {
    let count = 0;
    for (const row of await tx.oidc.keys.all()) {
      const due = !isSealed(row.material) || (which === 'plain-or-stale' && secrets.isStale(row.material.sealed));
      if (!due) continue;
      await tx.oidc.keys.setMaterial(row.id, sealMaterial(secrets, row.kind, row.id, openMaterial(secrets, row)));
      count++;
    }
    return count;
  });
}

/** The keys in the store, creating the first ones when there are none (and sealing plain ones of an earlier version). */
export async function loadOrCreateKeys(store: Store, secrets: SecretBox): Promise<OidcKeys> {
  const now = new Date();
  const found = await readKeys(store, secrets, now);
  const plain = (await store.read.oidc.keys.all()).some((row) => !isSealed(row.material));
  if (plain) await store.exclusive(() => resealKeys(store, secrets, 'plain'));
  if (found.signing.length > 0 && found.cookie.length > 0) return found;
  const signing = await newSigningKey();
  const cookie = newCookieSecret();
  await store.exclusive(() =>
    store.transaction(async (tx) => {
      if ((await tx.oidc.keys.live('signing', now)).length === 0) await insertKey(tx, secrets, 'signing', signing, now);
      if ((await tx.oidc.keys.live('cookie', now)).length === 0) await insertKey(tx, secrets, 'cookie', cookie, now);
    }),
  );
  return readKeys(store, secrets, now);
}

/**
 * Adds a new signing key and cookie secret and lets the current ones expire after `overlapMs`
 * (default 24 h: longer than any access or ID token lives). Running processes pick the new key
 * up within KEY_CHECK_INTERVAL_MS (server.ts); until then they sign with the old one, which
 * stays published and accepted.
 */
export async function rotateKeys(store: Store, secrets: SecretBox, overlapMs = 24 * 60 * 60 * 1000): Promise<{ kid: string }> {
  const signing = await newSigningKey();
  const cookie = newCookieSecret();
  const now = new Date();
  const until = new Date(now.getTime() + overlapMs);
  await store.transaction(async (tx) => {
    await tx.oidc.keys.expireAll('signing', until);
    await tx.oidc.keys.expireAll('cookie', until);
    await insertKey(tx, secrets, 'signing', signing, now);
    await insertKey(tx, secrets, 'cookie', cookie, now);
  });
  return { kid: signing.id };
}

/** The public halves, for verifying our own tokens without a round trip to /oauth/v2/keys. */
export function publicJwks(keys: OidcKeys): { keys: JWK[] } {
  return { keys: keys.signing.map(({ kty, n, e, kid, alg, use }) => ({ kty, n, e, kid, alg, use })) };
}

const sameKeys = (a: OidcKeys, b: OidcKeys) =>
  a.cookie.join(' ') === b.cookie.join(' ') && a.signing.map((k) => k.kid).join(' ') === b.signing.map((k) => k.kid).join(' ');

/**
 * The keys one process serves with, following the store: `refresh()` re-reads them and, when
 * they changed (a rotation, an expiry), replaces them and calls `onChange` (server.ts rebuilds
 * the provider, whose keys are fixed at construction).
 */
export class KeyRing {
  private keys: OidcKeys;
  private verifyKey: ReturnType<typeof createLocalJWKSet>;
  private lastRead = 0;

  constructor(
    private readonly store: Store,
    private readonly secrets: SecretBox,
    initial: OidcKeys,
    private readonly onChange: (keys: OidcKeys) => void = () => undefined,
  ) {
    this.keys = initial;
    this.verifyKey = createLocalJWKSet(publicJwks(initial));
  }

  get current(): OidcKeys {
    return this.keys;
  }

  /**
   * Re-reads the keys unless that was done less than `minIntervalMs` ago (a burst of tokens
   * with an unknown key costs one read a second, not one each). Resolves true when they changed.
   */
  async refresh(minIntervalMs = 1000): Promise<boolean> {
    const now = Date.now();
    if (now - this.lastRead < minIntervalMs) return false;
    this.lastRead = now;
    const keys = await readKeys(this.store, this.secrets, new Date(now));
    // No live signing key would leave nothing to sign with: keep what there is (rotateKeys never does that).
    if (keys.signing.length === 0 || keys.cookie.length === 0 || sameKeys(keys, this.keys)) return false;
    this.keys = keys;
    this.verifyKey = createLocalJWKSet(publicJwks(keys));
    this.onChange(keys);
    return true;
  }

  /** Verifies a JWT of ours; one signed by a key not known here yet makes the ring re-read the store first. */
  async verify(token: string, options: JWTVerifyOptions) {
    try {
      return await jwtVerify(token, this.verifyKey, options);
    } catch (error) {
      if (!(error instanceof joseErrors.JWKSNoMatchingKey) || !(await this.refresh())) throw error;
      return jwtVerify(token, this.verifyKey, options);
    }
  }
}
