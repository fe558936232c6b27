import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOperatorSecretBox } from '../../src/secrets/operator-key.js';
import { createSecretBox, generateKeyText, parseKey, SecretKeyError } from '../../src/secrets/secret-box.js';
import { tempDir } from '../support/temp-dir.js';

describe('secrets at rest', () => {
  const key = parseKey(generateKeyText(), 'test');

  it('seals so that the plain text does not appear, and opens for the same purpose only', () => {
    const box = createSecretBox(key);
    const sealed = box.seal('smtp-password-123', 'smtp.password');
    expect(sealed).not.toContain('smtp-password-123');
    expect(sealed.startsWith(`sb1.${box.keyId}.`)).toBe(true);
    expect(box.openText(sealed, 'smtp.password')).toBe('smtp-password-123');
    expect(() => box.open(sealed, 'oidc.key')).toThrow(SecretKeyError);
    expect(box.seal('x', 'p')).not.toBe(box.seal('x', 'p'));
  });

  it('opens values sealed with an earlier key and names both keys when it has not got it', () => {
    const old = createSecretBox(key);
    const sealed = old.seal('s', 'p');
    const next = parseKey(generateKeyText(), 'test');
    const rotated = createSecretBox(next, [key]);
    expect(rotated.openText(sealed, 'p')).toBe('s');
    expect(rotated.isStale(sealed)).toBe(true);
    expect(rotated.isStale(rotated.seal('s', 'p'))).toBe(false);
    expect(() => createSecretBox(next).open(sealed, 'p')).toThrow(new RegExp(`sealed with encryption key ${old.keyId}`));
  });

  it('refuses a key of the wrong length with a message saying how to make one', () => {
    expect(() => parseKey('short', 'ENCRYPTION_KEY')).toThrow(/ENCRYPTION_KEY: an encryption key must be 32 random bytes/);
    expect(parseKey('ab'.repeat(32), 'hex').length).toBe(32);
  });

  it('creates a key file private to the service user on the first start and reuses it later', () => {
    const dir = join(tempDir('keys-'), 'data');
    const keyFile = join(dir, 'encryption.key');
    const first = loadOperatorSecretBox({ keyFile, previousKeys: [] });
    expect(first.createdFile).toBe(keyFile);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const second = loadOperatorSecretBox({ keyFile, previousKeys: [] });
    expect(second.createdFile).toBeUndefined();
    expect(second.box.keyId).toBe(first.box.keyId);
    expect(readFileSync(keyFile, 'utf8').trim().length).toBeGreaterThan(40);
  });

  it('processes making the key file at once all end up with the one key written', async () => {
    const keyFile = join(tempDir('keys-'), 'data', 'encryption.key');
    const module = new URL('../../src/secrets/operator-key.ts', import.meta.url).href;
    // All processes wait for one moment, then race for the file.
    const at = Date.now() + 4000;
    const script = `const { loadOperatorSecretBox } = await import(${JSON.stringify(module)}); while (Date.now() < ${at}); process.stdout.write(loadOperatorSecretBox({ keyFile: ${JSON.stringify(keyFile)}, previousKeys: [] }).box.keyId);`;
    const results = await Promise.all(
      Array.from(
        { length: 6 },
        () =>
          new Promise<{ code: number | null; out: string }>((resolve) => {
            const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
            let out = '';
            child.stdout.on('data', (c: Buffer) => (out += c.toString()));
            child.stderr.on('data', (c: Buffer) => (out += c.toString()));
            child.on('exit', (code) => resolve({ code, out }));
          }),
      ),
    );
    for (const r of results) expect(r.code, r.out).toBe(0);
    const written = loadOperatorSecretBox({ keyFile, previousKeys: [] }).box.keyId;
    expect(results.map((r) => r.out)).toEqual(results.map(() => written));
    expect(readdirSync(dirname(keyFile))).toEqual(['encryption.key']);
  }, 60_000);
});
