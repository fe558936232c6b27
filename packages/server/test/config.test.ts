/**
 * The environment as config.ts reads it: a bad value stops the start with a message naming it.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('DATABASE_URL: a path, file:, postgres: and postgresql: choose the store', () => {
    expect(loadConfig({}).store).toEqual({ dialect: 'sqlite', target: './data/identity.db' });
    expect(loadConfig({ DATABASE_URL: './x/y.db' }).store).toEqual({ dialect: 'sqlite', target: './x/y.db' });
    expect(loadConfig({ DATABASE_URL: 'file:/tmp/y.db' }).store).toEqual({ dialect: 'sqlite', target: '/tmp/y.db' });
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).store.dialect).toBe('postgres');
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@h/db' }).store.dialect).toBe('postgres');
  });

  it('DATABASE_URL with another scheme is a configuration error naming the variable and the schemes', () => {
    for (const url of ['mysql://x/y', 'sqlite:///tmp/a.db', 'mongodb+srv://h/db', 'https://example.com/db']) {
      expect(() => loadConfig({ DATABASE_URL: url }), url).toThrow(ConfigError);
      expect(() => loadConfig({ DATABASE_URL: url }), url).toThrow(/DATABASE_URL: .*scheme .*file:.*postgres:.*postgresql:/);
    }
  });
});
