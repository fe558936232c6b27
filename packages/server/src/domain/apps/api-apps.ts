/**
 * API applications of a project (ZITADEL's AddAPIApp and RegenerateAPIClientSecret; its
 * UpdateAPIAppConfig has nothing to change while basic authentication is the only method):
 * a client that signs nobody in but calls token introspection with its own credentials (a resource
 * server checking the tokens it receives). Rows of the same table as OIDC applications
 * (`app_type = 'api'`), so GetAppByID, ListApps, UpdateApp and RemoveApp cover both.
 *
 * Authentication: `API_AUTH_METHOD_TYPE_BASIC` (a generated secret, returned once, kept as sha-256).
 * `API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT` needs application keys (ZITADEL's AddAppKey), which this
 * service does not offer yet: it is refused with a 400 that says so.
 */
import { generateToken, hashToken } from '../../auth/tokens.js';
import type { Store } from '../../store/store.js';
import type { OidcAppRow } from '../../store/repositories/oidc-apps.js';
import { requirePermission, type RequestContext } from '../context.js';
import { addedDetails, changedDetails, type ObjectDetails } from '../details.js';
import { failedPrecondition, invalidArgument } from '../errors.js';
import { newId } from '../ids.js';
import { PROJECT_AGGREGATE, projectForCaller } from '../projects/access.js';
import { APP_LOCK, appNotFound, checkName } from './oidc-apps.js';

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

/** The method, or 400: only basic authentication can be used here (see above). */
export function checkAuthMethod(method: ApiAuthMethodType | undefined): ApiAuthMethodType {
  const chosen = method ?? 'API_AUTH_METHOD_TYPE_BASIC';
  if (chosen === 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT') {
    throw invalidArgument('APP-pr1vK', 'invalid authMethodType: API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT needs application keys, which this service does not offer yet; use API_AUTH_METHOD_TYPE_BASIC');
  }
  return chosen;
}

export async function addApiApp(
  store: Store,
  ctx: RequestContext,
  projectId: string,
  input: { name: string; authMethodType?: ApiAuthMethodType },
): Promise<{ appId: string; details: ObjectDetails; clientId: string; clientSecret: string }> {
  requirePermission(ctx, 'project.app.write');
  const name = checkName(input.name);
  const authMethodType = checkAuthMethod(input.authMethodType);
  const appId = newId();
  const clientId = newId();
  const clientSecret = generateToken();
  return store.transaction(async (tx) => {
    const project = await projectForCaller(tx, ctx, projectId, 'project.app.write');
    const emit = (type: string, payload: Record<string, unknown>) =>
      tx.events.append({ aggregateType: PROJECT_AGGREGATE, aggregateId: project.id, type, payload, creator: ctx.caller.userId, resourceOwner: project.orgId });
    await emit('project.application.added', { appId, name });
    const event = await emit('project.application.config.api.added', { appId, clientId, authMethodType, hasSecret: true });
    await tx.oidcApps.insert({
      id: appId, projectId: project.id, orgId: project.orgId, name, state: 'APP_STATE_ACTIVE', clientId, appType: 'api',
      clientSecretHash: hashToken(clientSecret), config: { authMethodType },
      sequence: event.sequence, createdAt: event.createdAt, changedAt: event.createdAt,
    });
    await tx.projects.touch(project.id, event.sequence, event.createdAt);
    return { appId, details: addedDetails(event), clientId, clientSecret };
  });
}

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
  return store.transaction(async (tx) => {
    const { project, row } = await apiAppFor(tx, ctx, projectId, appId);
    const event = await tx.events.append({
      aggregateType: PROJECT_AGGREGATE, aggregateId: project.id, type: 'project.application.config.api.secret.changed',
      payload: { appId }, creator: ctx.caller.userId, resourceOwner: project.orgId,
    });
    await tx.oidcApps.update(row.id, { clientSecretHash: hashToken(clientSecret), sequence: event.sequence, changedAt: event.createdAt });
    await tx.projects.touch(project.id, event.sequence, event.createdAt);
    return { clientSecret, details: changedDetails(event) };
  }, [[APP_LOCK, appId]]);
}
