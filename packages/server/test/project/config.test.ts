/**
 * The environment as config.ts reads it: a bad value stops the start with a message naming it.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('configuration', () => {
  it('DATABASE_URL: a path, file:, postgres: and postgresql: choose the store', () => {
    expect(loadConfig({}).store).toEqual({ dialect: 'sqlite', target: './data/identity.db' });
    expect(loadConfig({ DATABASE_URL: './x/y.db' }).store).toEqual({ dialect: 'sqlite', target: './x/y.db' });
    expect(loadConfig({ DATABASE_URL: 'file:/tmp/y.db' }).store).toEqual({ dialect: 'sqlite', target: '/tmp/y.db' });
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).store.dialect).toBe('postgres');
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@h/db' }).store.dialect).toBe('postgres');
  });

  it('DATA_DIR: the folder of the SQLite file, the admin token, the encryption key and the mail drop; a variable set still wins', () => {
    const defaults = loadConfig({});
    expect([defaults.dataDir, defaults.store.target, defaults.adminPatFile, defaults.encryptionKey.keyFile, defaults.mailDropDir]).toEqual([
      './data',
      './data/identity.db',
      './data/admin.pat',
      './data/encryption.key',
      './data/mail',
    ]);
    const moved = loadConfig({ DATA_DIR: '/srv/identity-b/' });
    expect([moved.store.target, moved.adminPatFile, moved.encryptionKey.keyFile, moved.mailDropDir]).toEqual([
      '/srv/identity-b/identity.db',
      '/srv/identity-b/admin.pat',
      '/srv/identity-b/encryption.key',
      '/srv/identity-b/mail',
    ]);
    const explicit = loadConfig({ DATA_DIR: 'b', DATABASE_URL: 'postgres://u@h/db', ADMIN_PAT_FILE: '/run/pat', ENCRYPTION_KEY_FILE: '/etc/key', MAIL_DROP_DIR: '/var/mail-drop' });
    expect([explicit.store.target, explicit.adminPatFile, explicit.encryptionKey.keyFile, explicit.mailDropDir]).toEqual(['postgres://u@h/db', '/run/pat', '/etc/key', '/var/mail-drop']);
    // Only DATABASE_URL set: the files stay in DATA_DIR.
    expect(loadConfig({ DATA_DIR: 'b', DATABASE_URL: './x.db' })).toMatchObject({ store: { target: './x.db' }, adminPatFile: 'b/admin.pat', mailDropDir: 'b/mail' });
    expect(() => loadConfig({ DATA_DIR: '' })).toThrow(/DATA_DIR/);
  });

  it('IMPORT_JOB_MAX_ATTEMPTS: 3 by default; a whole number from 1 to 100, anything else names the variable', () => {
    expect(loadConfig({}).importJobMaxAttempts).toBe(3);
    expect(loadConfig({ IMPORT_JOB_MAX_ATTEMPTS: '1' }).importJobMaxAttempts).toBe(1);
    for (const bad of ['0', '-1', '2.5', 'many', '101']) expect(() => loadConfig({ IMPORT_JOB_MAX_ATTEMPTS: bad }), bad).toThrow(/IMPORT_JOB_MAX_ATTEMPTS/);
  });

  it('DATABASE_URL with another scheme is a configuration error naming the variable and the schemes', () => {
    for (const url of ['mysql://x/y', 'sqlite:///tmp/a.db', 'mongodb+srv://h/db', 'https://example.com/db']) {
      expect(() => loadConfig({ DATABASE_URL: url }), url).toThrow(ConfigError);
      expect(() => loadConfig({ DATABASE_URL: url }), url).toThrow(/DATABASE_URL: .*scheme .*file:.*postgres:.*postgresql:/);
    }
  });
});
