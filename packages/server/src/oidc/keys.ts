/**
 * Key material of the authorization server, kept in the store so that every process on one
 * store signs and verifies alike: signing keys (private JWKs) and cookie-signing secrets.
 * A signing key has one of ZITADEL's web-key algorithms (SIGNING_ALGORITHMS): RS256 by default, as
 * in ZITADEL; ES256 or EdDSA sign several times cheaper (an ID token, a JWT access token), for
 * an ecosystem whose clients accept them. The newest key signs, so its algorithm is the one every
 * ID token and JWT access token carries (`signingAlgorithm`).
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
import { calculateJwkThumbprint, createLocalJWKSet, exportJWK, generateKeyPair, type JWK, type JWTVerifyOptions, errors as joseErrors, jwtVerify } from 'jose';
import type { SecretBox } from '../secrets/secret-box.js';
import type { OidcKeyRow } from '../store/repositories/oidc.js';
import type { Repositories, Store } from '../store/store.js';

export interface OidcKeys {
  /** Private signing JWKs, newest (the one that signs) first. */
  signing: JWK[];
  /** Cookie secrets, newest (the one that signs) first. */
  cookie: string[];
}

/**
 * The algorithms a signing key may have: ZITADEL's web keys' (RSA 2048 with SHA-256/384/512, ECDSA on
 * P-256/384/521, Ed25519), so a document or a habit brought from ZITADEL means the same here.
 */
export const SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];
export const DEFAULT_SIGNING_ALGORITHM: SigningAlgorithm = 'RS256';

export const isSigningAlgorithm = (value: unknown): value is SigningAlgorithm => (SIGNING_ALGORITHMS as readonly unknown[]).includes(value);

/** The algorithm the keys sign with: the newest signing key's (a key of an earlier version has RS256). */
export function signingAlgorithm(keys: OidcKeys): SigningAlgorithm {
  const alg = keys.signing[0]?.alg;
  return isSigningAlgorithm(alg) ? alg : DEFAULT_SIGNING_ALGORITHM;
}

async function newSigningKey(alg: SigningAlgorithm): Promise<{ id: string; material: KeyMaterial }> {
  const options = alg.startsWith('RS') ? { modulusLength: 2048 } : alg === 'EdDSA' ? { crv: 'Ed25519' } : {};
  const { privateKey } = await generateKeyPair(alg, { ...options, extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), alg, use: 'sig' };
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

/**
 * The keys in the store, creating the first ones when there are none (and sealing plain ones of an
 * earlier version). `algorithm` (SIGNING_KEY_ALGORITHM) is the first signing key's; later ones are
 * made by `rotateKeys`.
 */
export async function loadOrCreateKeys(store: Store, secrets: SecretBox, algorithm: SigningAlgorithm = DEFAULT_SIGNING_ALGORITHM): Promise<OidcKeys> {
  const now = new Date();
  const found = await readKeys(store, secrets, now);
  const plain = (await store.read.oidc.keys.all()).some((row) => !isSealed(row.material));
  if (plain) await store.exclusive(() => resealKeys(store, secrets, 'plain'));
  if (found.signing.length > 0 && found.cookie.length > 0) return found;
  const signing = await newSigningKey(algorithm);
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
 * stays published and accepted. The new key has `algorithm`, by default the current key's: a
 * rotation changes the algorithm only when asked to.
 */
export async function rotateKeys(store: Store, secrets: SecretBox, overlapMs = 24 * 60 * 60 * 1000, algorithm?: SigningAlgorithm): Promise<{ kid: string; alg: SigningAlgorithm }> {
  const alg = algorithm ?? signingAlgorithm(await readKeys(store, secrets, new Date()));
  const signing = await newSigningKey(alg);
  const cookie = newCookieSecret();
  const now = new Date();
  const until = new Date(now.getTime() + overlapMs);
  await store.transaction(async (tx) => {
    await tx.oidc.keys.expireAll('signing', until);
    await tx.oidc.keys.expireAll('cookie', until);
    await insertKey(tx, secrets, 'signing', signing, now);
    await insertKey(tx, secrets, 'cookie', cookie, now);
  });
  return { kid: signing.id, alg };
}

/** A JWK's public members (RFC 7518 §6: RSA n, e; EC crv, x, y; RFC 8037: OKP crv, x); never d, p, q, …. */
const publicJwk = ({ kty, n, e, crv, x, y, kid, alg, use }: JWK): JWK => Object.fromEntries(Object.entries({ kty, n, e, crv, x, y, kid, alg, use }).filter(([, v]) => v !== undefined)) as JWK;

/** The public halves, for verifying our own tokens without a round trip to /oauth/v2/keys. */
export function publicJwks(keys: OidcKeys): { keys: JWK[] } {
  return { keys: keys.signing.map(publicJwk) };
}

const sameKeys = (a: OidcKeys, b: OidcKeys) => a.cookie.join(' ') === b.cookie.join(' ') && a.signing.map((k) => k.kid).join(' ') === b.signing.map((k) => k.kid).join(' ');

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
