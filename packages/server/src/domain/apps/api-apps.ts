/**
 * API applications of a project (ZITADEL's AddAPIApp, UpdateAPIAppConfig and
 * RegenerateAPIClientSecret): a client that signs nobody in but calls token introspection with its
 * own credentials (a resource server checking the tokens it receives). Rows of the same table as
 * OIDC applications (`app_type = 'api'`), so GetAppByID, ListApps, UpdateApp and RemoveApp cover both.
 *
 * Authentication: `API_AUTH_METHOD_TYPE_BASIC` (a generated secret, returned once, kept as sha-256)
 * or `API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT` (a JWT signed with one of its keys, app-keys.ts; no
 * secret exists then).
 */
import { generateToken, hashToken } from '../../auth/tokens.js';
import type { OidcAppRow } from '../../store/repositories/oidc-apps.js';
import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { addedDetails, type ObjectDetails } from '../details.js';
import { failedPrecondition } from '../errors.js';
import { newId } from '../ids.js';
import { projectForCaller } from '../projects/access.js';
import { APP_LOCK, appNotFound, checkName, insertApp, recordAppChange } from './app-basics.js';

export const API_AUTH_METHOD_TYPES = ['API_AUTH_METHOD_TYPE_BASIC', 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT'] as const;
export type ApiAuthMethodType = (typeof API_AUTH_METHOD_TYPES)[number];

export interface ApiConfigView {
  clientId: string;
  authMethodType: ApiAuthMethodType;
}

export const isApiApp = (row: Pick<OidcAppRow, 'appType'>) => row.appType === 'api';

export function apiConfigOf(row: OidcAppRow): ApiConfigView {
  const authMethodType = (row.config as { authMethodType?: ApiAuthMethodType }).authMethodType ?? 'API_AUTH_METHOD_TYPE_BASIC';
  return { clientId: row.clientId, authMethodType };
}

export async function addApiApp(
  store: Store,
  ctx: RequestContext,
  projectId: string,
  input: { name: string; authMethodType?: ApiAuthMethodType },
): Promise<{ appId: string; details: ObjectDetails; clientId: string; clientSecret?: string }> {
  requirePermission(ctx, 'project.app.write');
  const name = checkName(input.name);
  const authMethodType = input.authMethodType ?? 'API_AUTH_METHOD_TYPE_BASIC';
  const appId = newId();
  const clientId = newId();
  const clientSecret = usesSecret(authMethodType) ? generateToken() : undefined;
  return store.transaction(async (tx) => {
    const project = await projectForCaller(tx, ctx, projectId, 'project.app.write');
    const event = await insertApp(tx, ctx, project, { id: appId, name, clientId, appType: 'api', clientSecret, config: { authMethodType } }, { authMethodType });
    return { appId, details: addedDetails(event), clientId, ...(clientSecret ? { clientSecret } : {}) };
  });
}

/** Only basic authentication has a client secret; a PRIVATE_KEY_JWT application has keys instead. */
const usesSecret = (method: ApiAuthMethodType) => method === 'API_AUTH_METHOD_TYPE_BASIC';

/** The API application of the project, or 404; an OIDC application → 400 (its own operations apply). */
async function apiAppFor(tx: Parameters<Parameters<Store['transaction']>[0]>[0], ctx: RequestContext, projectId: string, appId: string) {
  const project = await projectForCaller(tx, ctx, projectId, 'project.app.write');
  const row = await tx.oidcApps.get(project.id, appId);
  if (!row) throw appNotFound();
  if (!isApiApp(row)) throw failedPrecondition('COMMAND-Gnwt3', 'The application is not an API application');
  return { project, row };
}

export async function regenerateApiClientSecret(store: Store, ctx: RequestContext, projectId: string, appId: string): Promise<{ clientSecret: string; details: ObjectDetails }> {
  requirePermission(ctx, 'project.app.write');
  const clientSecret = generateToken();
  return store.transaction(
    async (tx) => {
      const { project, row } = await apiAppFor(tx, ctx, projectId, appId);
      if (!usesSecret(apiConfigOf(row).authMethodType)) {
        throw failedPrecondition('COMMAND-Gnwt5', 'Errors.Project.App.APIAuthMethodNoSecret: an application with the auth method PRIVATE_KEY_JWT has no client secret (it uses its keys)');
      }
      const details = await recordAppChange(tx, ctx, project, row, { type: 'project.application.config.api.secret.changed', payload: {}, row: { clientSecretHash: hashToken(clientSecret) } });
      return { clientSecret, details };
    },
    [[APP_LOCK, appId]],
  );
}

/**
 * Changes how the API application authenticates (ZITADEL's UpdateAPIAppConfig). To PRIVATE_KEY_JWT:
 * the secret is dropped at once (its keys are used instead; add them with AddAppKey). To BASIC: a
 * new secret is generated and returned here once (ZITADEL leaves that to RegenerateAPIClientSecret;
 * this way the application is never left with a method it cannot use). Keys stay stored but are
 * not accepted while the method is BASIC. The same method again answers 400.
 */
export async function updateApiAppConfig(
  store: Store,
  ctx: RequestContext,
  projectId: string,
  appId: string,
  input: { authMethodType?: ApiAuthMethodType },
): Promise<{ details: ObjectDetails; clientSecret?: string }> {
  requirePermission(ctx, 'project.app.write');
  const authMethodType = input.authMethodType ?? 'API_AUTH_METHOD_TYPE_BASIC';
  return store.transaction(
    async (tx) => {
      const { project, row } = await apiAppFor(tx, ctx, projectId, appId);
      if (apiConfigOf(row).authMethodType === authMethodType) throw failedPrecondition('COMMAND-1m88i', 'Errors.NoChangesFound');
      const clientSecret = usesSecret(authMethodType) ? generateToken() : undefined;
      const details = await recordAppChange(tx, ctx, project, row, {
        type: 'project.application.config.api.changed',
        payload: { authMethodType, ...(clientSecret ? { secretGenerated: true } : {}) },
        row: { config: { ...row.config, authMethodType }, clientSecretHash: clientSecret ? hashToken(clientSecret) : null },
      });
      return { details, ...(clientSecret ? { clientSecret } : {}) };
    },
    [[APP_LOCK, appId]],
  );
}
