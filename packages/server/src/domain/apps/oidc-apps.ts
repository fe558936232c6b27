/**
 * OIDC applications of a project (ZITADEL's AddOIDCApp, GetAppByID, ListApps,
 * UpdateOIDCAppConfig, RemoveApp). Apps are events on the project aggregate. A confidential
 * app's secret is generated here, returned once, and only its sha-256 is kept.
 */
import { generateToken, hashToken } from '../../auth/tokens.js';
import type { OidcAppRow } from '../../store/repositories/oidc-apps.js';
import type { Repositories, Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { addedDetails, changedDetails, type ObjectDetails, viewDetails } from '../details.js';
import { failedPrecondition, invalidArgument, permissionDenied } from '../errors.js';
import { newId } from '../ids.js';
import { type ListDetails, type ListQueryInput, listDetails, toPage } from '../list.js';
import { appendProjectEvent, projectForCaller } from '../projects/access.js';
import { type ApiConfigView, apiConfigOf, isApiApp } from './api-apps.js';
import { APP_LOCK, appNotFound, checkName, insertApp, recordAppChange } from './app-basics.js';
import { complianceProblems, type OidcAppConfig, type OidcAppInput, storedOidcConfig, validateOidcConfig, withDefaults } from './oidc-config.js';

export interface LocalizedMessage {
  key: string;
  localizedMessage: string;
}

export interface OidcConfigView extends OidcAppConfig {
  clientId: string;
  noneCompliant: boolean;
  complianceProblems: LocalizedMessage[];
}

export interface AppView {
  id: string;
  details: ObjectDetails;
  state: 'APP_STATE_ACTIVE' | 'APP_STATE_INACTIVE';
  name: string;
  /** One of the two, by the application's type. */
  oidcConfig?: OidcConfigView;
  apiConfig?: ApiConfigView;
}

const PROBLEM_TEXT: Record<string, string> = {
  'Application.OIDC.V1.Code.RedirectURIs.HttpOnlyForDevMode': 'Redirect URIs with http are only allowed in development mode.',
  'Application.OIDC.V1.Native.RedirectURIs.InvalidScheme': 'Native apps need a custom scheme or http on a loopback address.',
  'Application.OIDC.V1.PostLogoutRedirectURIs.HttpOnlyForDevMode': 'Post-logout redirect URIs with http are only allowed in development mode.',
};

function compliance(config: OidcAppConfig): { noneCompliant: boolean; complianceProblems: LocalizedMessage[] } {
  // devMode accepts non-compliant URIs, as in ZITADEL; without it they are reported and not used.
  const problems = config.devMode ? [] : complianceProblems(config);
  return { noneCompliant: problems.length > 0, complianceProblems: problems.map((key) => ({ key, localizedMessage: PROBLEM_TEXT[key] ?? key })) };
}

/** BASIC and POST authenticate with the client secret; NONE (public) and PRIVATE_KEY_JWT (app-keys.ts) have none. */
export const needsSecret = (config: OidcAppConfig) => config.authMethodType === 'OIDC_AUTH_METHOD_TYPE_BASIC' || config.authMethodType === 'OIDC_AUTH_METHOD_TYPE_POST';

export function toAppView(row: OidcAppRow): AppView {
  const base = { id: row.id, details: viewDetails(row, row.orgId), state: row.state as AppView['state'], name: row.name };
  if (isApiApp(row)) return { ...base, apiConfig: apiConfigOf(row) };
  const config = storedOidcConfig(row.config);
  return { ...base, oidcConfig: { ...config, clientId: row.clientId, ...compliance(config) } };
}

export async function addOidcApp(
  store: Store,
  ctx: RequestContext,
  projectId: string,
  input: OidcAppInput & { name: string },
): Promise<{ appId: string; details: ObjectDetails; clientId: string; clientSecret?: string; noneCompliant: boolean; complianceProblems: LocalizedMessage[] }> {
  requirePermission(ctx, 'project.app.write');
  const name = checkName(input.name);
  const config = withDefaults(input);
  validateOidcConfig(config);
  const appId = newId();
  const clientId = newId();
  const clientSecret = needsSecret(config) ? generateToken() : undefined;
  return store.transaction(async (tx) => {
    const project = await projectForCaller(tx, ctx, projectId, 'project.app.write');
    const settings = config as unknown as Record<string, unknown>;
    const event = await insertApp(tx, ctx, project, { id: appId, name, clientId, appType: 'oidc', clientSecret, config: settings }, settings);
    return { appId, details: addedDetails(event), clientId, ...(clientSecret ? { clientSecret } : {}), ...compliance(config) };
  });
}

export async function getApp(store: Store, ctx: RequestContext, projectId: string, appId: string): Promise<{ app: AppView }> {
  requirePermission(ctx, 'project.app.read');
  const project = await projectForCaller(store.read, ctx, projectId, 'project.app.read');
  const row = await store.read.oidcApps.get(project.id, appId);
  if (!row) throw appNotFound();
  return { app: toAppView(row) };
}

export async function listApps(store: Store, ctx: RequestContext, projectId: string, input: { query?: ListQueryInput }): Promise<{ details: ListDetails; result: AppView[] }> {
  requirePermission(ctx, 'project.app.read');
  const project = await projectForCaller(store.read, ctx, projectId, 'project.app.read');
  const { total, rows } = await store.read.oidcApps.search(project.id, toPage(input.query));
  return { details: listDetails(total), result: rows.map(toAppView) };
}

/**
 * The OIDC application of the project, for a change, or 404; an API application → 400 naming the
 * operation that changes it instead (`apiOperation`), as apiAppFor (api-apps.ts) does the other way.
 */
export async function oidcAppFor(tx: Repositories, ctx: RequestContext, projectId: string, appId: string, apiOperation: string) {
  const project = await projectForCaller(tx, ctx, projectId, 'project.app.write');
  const row = await tx.oidcApps.get(project.id, appId);
  if (!row) throw appNotFound();
  if (isApiApp(row)) throw failedPrecondition('COMMAND-Gnwt4', `The application is not an OIDC application: use ${apiOperation}`);
  return { project, row };
}

/**
 * Replaces the OIDC settings given (fields left out keep their value). Switching from NONE to a
 * secret-based method needs a secret: one is generated and returned, as only then it can be shown.
 */
export async function updateOidcAppConfig(store: Store, ctx: RequestContext, projectId: string, appId: string, input: OidcAppInput): Promise<{ details: ObjectDetails; clientSecret?: string }> {
  requirePermission(ctx, 'project.app.write');
  return store.transaction(
    async (tx) => {
      const { project, row } = await oidcAppFor(tx, ctx, projectId, appId, 'UpdateAPIAppConfig');
      const before = storedOidcConfig(row.config);
      const config = withDefaults(input, before);
      validateOidcConfig(config);
      if (JSON.stringify(config) === JSON.stringify(before)) throw invalidArgument('COMMAND-1m88i', 'Errors.NoChangesFound');
      const clientSecret = needsSecret(config) && !row.clientSecretHash ? generateToken() : undefined;
      const details = await recordAppChange(tx, ctx, project, row, {
        type: 'project.application.config.oidc.changed',
        payload: { ...diff(before, config), ...(clientSecret ? { secretGenerated: true } : {}) },
        row: { config: config as unknown as Record<string, unknown>, clientSecretHash: needsSecret(config) ? (clientSecret ? hashToken(clientSecret) : row.clientSecretHash) : null },
      });
      return { details, ...(clientSecret ? { clientSecret } : {}) };
    },
    [[APP_LOCK, appId]],
  );
}

/**
 * Removes the application. The caller must be able to see it before being told it may not remove
 * it: ORG_OWNER reads apps but lacks `project.app.delete` (ZITADEL's defaults), and answering it 403
 * for another organisation's ids, where every other lookup answers 404, would confirm they exist.
 */
export async function removeApp(store: Store, ctx: RequestContext, projectId: string, appId: string): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'project.app.read');
  return store.transaction(
    async (tx) => {
      const project = await projectForCaller(tx, ctx, projectId, 'project.app.read');
      const row = await tx.oidcApps.get(project.id, appId);
      if (!row) throw appNotFound();
      if (!ctx.permissions.allowsProject('project.app.delete', project.id)) {
        throw permissionDenied('AUTH-5mWD2', 'No matching permissions found (project.app.delete)');
      }
      const event = await appendProjectEvent(tx, ctx, project, 'project.application.removed', { appId, name: row.name, clientId: row.clientId });
      await tx.oidcApps.remove(row.id);
      // Its keys go with it (app-keys.ts): nothing could use them, and the app id stays taken.
      await tx.appKeys.removeAllOf(row.id);
      return { details: changedDetails(event) };
    },
    [[APP_LOCK, appId]],
  );
}

function diff(before: OidcAppConfig, after: OidcAppConfig): Partial<OidcAppConfig> {
  const changed: Record<string, unknown> = {};
  for (const key of Object.keys(after) as (keyof OidcAppConfig)[]) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changed[key] = after[key];
  }
  return changed as Partial<OidcAppConfig>;
}
