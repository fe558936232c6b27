/**
 * The authorization server's private signing keys and cookie secrets at rest: sealed with the
 * operator's key (secrets/secret-box.ts), never in plain text in oidc_keys; plain keys of an
 * earlier version load and are sealed; after a rotation of the operator's key they open with
 * ENCRYPTION_KEYS_PREVIOUS and the reseal command moves them to the new key.
 */

import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { resealSecrets } from '../../src/commands/resealers.js';
import { oidcRowFields } from '../../src/domain/idps/commands.js';
import { OIDC_CLIENT_SECRET_PURPOSE } from '../../src/domain/idps/idp.js';
import { SMTP_PASSWORD_PURPOSE } from '../../src/domain/notifications/smtp-providers.js';
import { openOtpSecret, sealOtpSecret } from '../../src/domain/users/otp-secret.js';
import { loadOrCreateKeys, readKeys, rotateKeys } from '../../src/oidc/keys.js';
import { createSecretBox, generateKeyText, parseKey, SecretKeyError } from '../../src/secrets/secret-box.js';
import { openStore, type Store } from '../../src/store/store.js';
import { describeEachStore, openTestStore } from '../support/instance.js';

const newKey = () => parseKey(generateKeyText(), 'test');

describeEachStore('OIDC keys at rest', (dialect) => {
  let store: Store;
  let cleanup: () => void = () => undefined;
  afterEach(async () => {
    await store?.close();
    cleanup();
  });

  const rawRows = async () => [...(await store.read.oidc.keys.live('signing', new Date())), ...(await store.read.oidc.keys.live('cookie', new Date()))];

  it('private signing keys and cookie secrets are stored sealed: no private part and no secret in the table', async () => {
    ({ store, cleanup } = await openTestStore(dialect));
    const box = createSecretBox(newKey());
    const keys = await loadOrCreateKeys(store, box);
    await rotateKeys(store, box);
    const all = await readKeys(store, box, new Date());
    expect(all.signing).toHaveLength(2);
    const raw = JSON.stringify(await rawRows());
    for (const jwk of all.signing) {
      for (const part of [jwk.d, jwk.p, jwk.q, jwk.dp, jwk.dq, jwk.qi]) {
        expect(part).toBeTruthy();
        expect(raw).not.toContain(part);
      }
    }
    for (const secret of all.cookie) expect(raw).not.toContain(secret);
    for (const row of await rawRows()) expect(String(row.material.sealed)).toMatch(new RegExp(`^sb1\\.${box.keyId}\\.`));
    expect(keys.signing[0]!.kid).toBe(all.signing[1]!.kid);
    // A process with another operator key cannot use them, and says why.
    await expect(readKeys(store, createSecretBox(newKey()), new Date())).rejects.toThrow(SecretKeyError);
  });

  it('plain-text keys written by an earlier version load as they are and are sealed on the first start', async () => {
    ({ store, cleanup } = await openTestStore(dialect));
    const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig' };
    jwk.kid = await calculateJwkThumbprint(jwk);
    const now = new Date();
    await store.transaction(async (tx) => {
      await tx.oidc.keys.insert({ id: jwk.kid!, kind: 'signing', material: jwk, createdAt: now, expiresAt: null });
      await tx.oidc.keys.insert({ id: 'cookie-old', kind: 'cookie', material: { secret: 'an-old-cookie-secret' }, createdAt: now, expiresAt: null });
    });
    const box = createSecretBox(newKey());
    const keys = await loadOrCreateKeys(store, box);
    expect(keys.signing.map((k) => k.kid)).toEqual([jwk.kid]);
    expect(keys.signing[0]!.d).toBe(jwk.d);
    expect(keys.cookie).toEqual(['an-old-cookie-secret']);
    const raw = JSON.stringify(await rawRows());
    expect(raw).not.toContain(jwk.d);
    expect(raw).not.toContain('an-old-cookie-secret');
    expect((await readKeys(store, box, new Date())).signing[0]!.d).toBe(jwk.d);
  });

  it('after the operator key is rotated, keys open with the previous key and resealSecrets moves them to the new one', async () => {
    ({ store, cleanup } = await openTestStore(dialect));
    const oldKey = newKey();
    const nextKey = newKey();
    const before = await loadOrCreateKeys(store, createSecretBox(oldKey));

    // Started with the new key only, the process cannot open them and names both keys.
    await expect(readKeys(store, createSecretBox(nextKey), new Date())).rejects.toThrow(/sealed with encryption key/);
    // With ENCRYPTION_KEYS_PREVIOUS it can.
    const rotated = createSecretBox(nextKey, [oldKey]);
    expect((await loadOrCreateKeys(store, rotated)).signing[0]!.d).toBe(before.signing[0]!.d);

    // An SMTP password sealed with the old key moves along (domain/notifications/smtp-providers.ts).
    await store.transaction((tx) =>
      tx.notifications.insertProvider({
        id: 'smtp-1',
        description: '',
        senderAddress: 'a@example.com',
        senderName: 'A',
        replyToAddress: '',
        tls: false,
        host: 'localhost:25',
        user: 'u',
        passwordSealed: createSecretBox(oldKey).seal('the-smtp-password', SMTP_PASSWORD_PURPOSE),
        state: 'SMTP_CONFIG_INACTIVE',
        sequence: 0,
        createdAt: new Date(),
        changedAt: new Date(),
      }),
    );
    // And a user's TOTP secret (domain/users/otp-secret.ts).
    await store.transaction((tx) => tx.logins.addOtpSecret('otp-user', sealOtpSecret(createSecretBox(oldKey), 'JBSWY3DPEHPK3PXP'), new Date()));
    // And one being set up, waiting for its first code (domain/users/otp-enrolment.ts).
    await store.transaction((tx) => tx.otpEnrolment.setPending('otp-user-2', sealOtpSecret(createSecretBox(oldKey), 'KRUGS4ZANFZSAYJA'), new Date()));
    // And an OIDC identity provider's client secret (domain/idps/commands.ts).
    await store.transaction((tx) =>
      tx.idps.insert({
        id: 'idp-1',
        ownerId: 'org-1',
        ownerType: 'IDP_OWNER_TYPE_ORG',
        name: 'Upstream',
        nameKey: 'upstream',
        state: 'IDP_STATE_ACTIVE',
        stylingType: 'STYLING_TYPE_UNSPECIFIED',
        autoRegister: false,
        ...oidcRowFields(
          { clientId: 'c', issuer: 'https://upstream.example.com', scopes: [], displayNameMapping: 'OIDC_MAPPING_FIELD_UNSPECIFIED', usernameMapping: 'OIDC_MAPPING_FIELD_UNSPECIFIED' },
          createSecretBox(oldKey).seal('the-client-secret', OIDC_CLIENT_SECRET_PURPOSE),
        ),
        sequence: 1,
        createdAt: new Date(),
        changedAt: new Date(),
      }),
    );
    const result = await resealSecrets(store, rotated);
    expect(result).toEqual({ 'OIDC signing keys and cookie secrets': 2, 'SMTP passwords': 1, 'TOTP secrets': 1, 'TOTP secrets being set up': 1, "OIDC identity providers' client secrets": 1 });
    expect(openOtpSecret(createSecretBox(nextKey), (await store.read.otpEnrolment.pending('otp-user-2'))!.secret)).toBe('KRUGS4ZANFZSAYJA');
    expect(createSecretBox(nextKey).openText((await store.read.idps.get('idp-1'))!.oidcClientSecretSealed!, OIDC_CLIENT_SECRET_PURPOSE)).toBe('the-client-secret');
    expect(openOtpSecret(createSecretBox(nextKey), (await store.read.logins.otpSecret('otp-user'))!)).toBe('JBSWY3DPEHPK3PXP');
    const provider = await store.read.notifications.provider('smtp-1');
    expect(createSecretBox(nextKey).openText(provider!.passwordSealed!, SMTP_PASSWORD_PURPOSE)).toBe('the-smtp-password');
    expect((await resealSecrets(store, rotated))['OIDC signing keys and cookie secrets']).toBe(0);
    const onlyNew = await readKeys(store, createSecretBox(nextKey), new Date());
    expect(onlyNew.signing[0]!.d).toBe(before.signing[0]!.d);
    expect(onlyNew.cookie).toEqual(before.cookie);
  });
});

describe('npm run secrets:reseal', () => {
  it('re-seals the store of DATABASE_URL with ENCRYPTION_KEY, opening with ENCRYPTION_KEYS_PREVIOUS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'identity-reseal-'));
    const file = join(dir, 'identity.db');
    const oldText = generateKeyText();
    const newText = generateKeyText();
    let store = await openStore({ dialect: 'sqlite', target: file });
    const before = await loadOrCreateKeys(store, createSecretBox(parseKey(oldText, 'old')));
    await store.close();

    const child = spawn('npm', ['run', '--silent', 'secrets:reseal', '-w', '@identity-service/server'], {
      cwd: join(import.meta.dirname, '../../../..'),
      env: { ...process.env, DATABASE_URL: `file:${file}`, ENCRYPTION_KEY: newText, ENCRYPTION_KEYS_PREVIOUS: oldText },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, out).toBe(0);
    expect(out).toMatch(/re-sealed 2 OIDC signing keys and cookie secrets/);

    store = await openStore({ dialect: 'sqlite', target: file });
    try {
      const after = await readKeys(store, createSecretBox(parseKey(newText, 'new')), new Date());
      expect(after.signing[0]!.d).toBe(before.signing[0]!.d);
    } finally {
      await store.close();
    }
  }, 60_000);
});
