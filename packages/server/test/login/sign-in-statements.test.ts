/**
 * A sign-in builds no statement once the server has served one: every query of its steps —
 * authorize, login page, password, code, token — is prepared (store/prepared.ts), because a drizzle
 * query built per call costs more CPU than running it (BENCHMARKS.md, the sign-in beside the hash
 * floor). Counted on the real drivers: SQLite's statements compiled (`Database#prepare`), and the
 * PostgreSQL queries sent without a statement name (a prepared one is named; BEGIN, COMMIT and
 * ROLLBACK are the transactions' own and not statements to prepare).
 */
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import * as oc from 'openid-client';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signInThroughForm } from '../support/code-flow.js';
import { describeEachStore } from '../support/instance.js';
import { importHuman, type OidcTestServer, publicClientInNewProject, startOidcServer } from '../support/oidc-server.js';

const REDIRECT = 'http://127.0.0.1:1/callback';
const PASSWORD = 'Secr3t-Passw0rd!';
const require = createRequire(import.meta.url);
const TRANSACTION_CONTROL = /^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/i;

/** Starts counting the statements built from now on; the returned function stops and lists them. */
function countBuiltStatements(): () => string[] {
  const built: string[] = [];
  const sqlite = (require('better-sqlite3') as typeof Database).prototype as unknown as { prepare: (sql: string, ...rest: unknown[]) => unknown };
  const client = (require('pg') as typeof pg).Client.prototype as unknown as { query: (config: unknown, ...rest: unknown[]) => unknown };
  const { prepare } = sqlite;
  const { query } = client;
  sqlite.prepare = function (this: unknown, sql: string, ...rest: unknown[]) {
    if (!TRANSACTION_CONTROL.test(sql)) built.push(sql);
    return prepare.call(this, sql, ...rest);
  };
  client.query = function (this: unknown, config: unknown, ...rest: unknown[]) {
    const text = typeof config === 'string' ? config : (config as { text?: string; name?: string } | undefined)?.name ? undefined : (config as { text?: string } | undefined)?.text;
    if (text !== undefined && !TRANSACTION_CONTROL.test(text)) built.push(text);
    return query.call(this, config, ...rest);
  };
  return () => {
    sqlite.prepare = prepare;
    client.query = query;
    return built;
  };
}

describeEachStore('a sign-in’s statements', (dialect) => {
  let s: OidcTestServer;
  let config: oc.Configuration;

  beforeAll(async () => {
    s = await startOidcServer(dialect);
    const clientId = await publicClientInNewProject(s, { name: 'statements' }, 'spa', REDIRECT);
    await importHuman(s, 'stella', { password: PASSWORD });
    config = await oc.discovery(new URL(s.issuer), clientId, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
  }, 120_000);
  afterAll(() => s?.close());

  const signIn = async () => {
    const signedIn = await signInThroughForm(config, REDIRECT, 'stella', PASSWORD, { scope: 'openid profile email' });
    expect(signedIn.callback, signedIn.page?.html.slice(0, 300)).toBeTruthy();
    await signedIn.redeem();
  };

  it('builds none after the first: each step’s queries are prepared', async () => {
    await signIn();
    const stop = countBuiltStatements();
    try {
      await signIn();
    } finally {
      expect(stop()).toEqual([]);
    }
  });
});
