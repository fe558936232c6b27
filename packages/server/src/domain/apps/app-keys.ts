/**
 * Application keys (ZITADEL's AddAppKey, ListAppKeys, GetAppKey, RemoveAppKey): an application
 * whose auth method is PRIVATE_KEY_JWT (API or OIDC) authenticates with a JWT it signs with one
 * of these keys (RFC 7523 `client_assertion`, oidc-provider's `private_key_jwt`; the keys reach
 * the provider through oidc/clients.ts).
 *
 * The key pair is made here (RSA 2048, domain/key-pairs.ts); the private key is returned once, inside `keyDetails`
 * (base64 of ZITADEL's key file `{"type":"application","keyId","key","appId","clientId"}`), and
 * never stored: only the public key is kept. A key stops being accepted at its expiration date.
 * Keys are events on the project aggregate, like the application they belong to.
 */

import type { AppKeyRow } from '../../store/repositories/app-keys.js';
import type { OidcAppRow } from '../../store/repositories/oidc-apps.js';
import type { Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { addedDetails, changedDetails, type ObjectDetails, viewDetails } from '../details.js';
import { failedPrecondition, invalidArgument, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { type KeyType, keyExpiration, newKeyPair } from '../key-pairs.js';
import { type ListDetails, type ListQueryInput, listDetails, toPage } from '../list.js';
import { appendProjectEvent, projectForCaller } from '../projects/access.js';
import { apiConfigOf, isApiApp } from './api-apps.js';
import { APP_LOCK, appNotFound } from './app-basics.js';
import { storedOidcConfig } from './oidc-config.js';

export interface AppKeyView {
  id: string;
  details: ObjectDetails;
  type: KeyType;
  expirationDate: string;
}

/** Whether the application authenticates with a signed JWT, so keys can be added and are used. */
export function usesPrivateKeyJwt(app: OidcAppRow): boolean {
  return isApiApp(app) ? apiConfigOf(app).authMethodType === 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' : storedOidcConfig(app.config).authMethodType === 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT';
}

const keyNotFound = (id: string) => notFound(id, 'Errors.Project.App.Key.NotFound');

function toView(row: AppKeyRow): AppKeyView {
  return { id: row.id, details: viewDetails(row, row.orgId), type: row.type as KeyType, expirationDate: row.expiresAt.toISOString() };
}

/** The application of the context organisation's project, after `permission` was checked. */
async function appFor(repos: Repositories, ctx: RequestContext, projectId: string, appId: string, permission: string) {
  const project = await projectForCaller(repos, ctx, projectId, permission);
  const app = await repos.oidcApps.get(project.id, appId);
  if (!app) throw appNotFound();
  return { project, app };
}

export async function addAppKey(
  store: Store,
  ctx: RequestContext,
  projectId: string,
  appId: string,
  input: { type: KeyType; expirationDate?: string },
): Promise<{ id: string; details: ObjectDetails; keyDetails: string }> {
  requirePermission(ctx, 'project.app.write');
  if (input.type !== 'KEY_TYPE_JSON') throw invalidArgument('APP-k3yTy', 'invalid type: the key type must be KEY_TYPE_JSON');
  const expiresAt = keyExpiration(input.expirationDate);
  // Made before the transaction (it takes tens of milliseconds, off the event loop), so the lock is short.
  const { publicKey, privateKey } = await newKeyPair();
  const keyId = newId();
  return store.transaction(
    async (tx) => {
      const { project, app } = await appFor(tx, ctx, projectId, appId, 'project.app.write');
      if (!usesPrivateKeyJwt(app)) {
        throw failedPrecondition('COMMAND-Dff54', 'Errors.Project.App.AuthMethodNoPrivateKeyJWT: keys are for applications with the auth method PRIVATE_KEY_JWT');
      }
      const event = await appendProjectEvent(tx, ctx, project, 'project.application.key.added', {
        appId: app.id,
        clientId: app.clientId,
        keyId,
        type: input.type,
        expirationDate: expiresAt.toISOString(),
        publicKey,
      });
      await tx.appKeys.insert({
        id: keyId,
        appId: app.id,
        projectId: project.id,
        orgId: project.orgId,
        clientId: app.clientId,
        type: input.type,
        expiresAt,
        publicKey,
        sequence: event.sequence,
        createdAt: event.createdAt,
        changedAt: event.createdAt,
      });
      const keyFile = { type: 'application', keyId, key: privateKey, appId: app.id, clientId: app.clientId };
      return { id: keyId, details: addedDetails(event), keyDetails: Buffer.from(JSON.stringify(keyFile)).toString('base64') };
    },
    [[APP_LOCK, appId]],
  );
}

export async function getAppKey(store: Store, ctx: RequestContext, projectId: string, appId: string, keyId: string): Promise<{ key: AppKeyView }> {
  requirePermission(ctx, 'project.app.read');
  const { app } = await appFor(store.read, ctx, projectId, appId, 'project.app.read');
  const row = await store.read.appKeys.get(app.id, keyId);
  if (!row) throw keyNotFound('QUERY-Dgfn3');
  return { key: toView(row) };
}

/** Every key of the application, expired ones included (they show their expirationDate). */
export async function listAppKeys(store: Store, ctx: RequestContext, projectId: string, appId: string, input: { query?: ListQueryInput }): Promise<{ details: ListDetails; result: AppKeyView[] }> {
  requirePermission(ctx, 'project.app.read');
  const { app } = await appFor(store.read, ctx, projectId, appId, 'project.app.read');
  const at = new Date();
  const { total, rows } = await store.read.appKeys.search(app.id, toPage(input.query));
  return { details: listDetails(total, at), result: rows.map(toView) };
}

/** Removes the key: assertions signed with it fail from the next request on (oidc/clients.ts reads keys per lookup). */
export async function removeAppKey(store: Store, ctx: RequestContext, projectId: string, appId: string, keyId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'project.app.write');
  return store.transaction(
    async (tx) => {
      const { project, app } = await appFor(tx, ctx, projectId, appId, 'project.app.write');
      const row = await tx.appKeys.get(app.id, keyId);
      if (!row) throw keyNotFound('COMMAND-4m77G');
      const event = await appendProjectEvent(tx, ctx, project, 'project.application.key.removed', { appId: app.id, keyId });
      await tx.appKeys.remove(row.id);
      return { details: changedDetails(event) };
    },
    [[APP_LOCK, appId]],
  );
}
