/**
 * What every kind of application (OIDC, API) shares: its lock, its not-found error, its name's rule,
 * and how a change to one is recorded.
 */
import { hashToken } from '../../auth/tokens.js';
import type { StoredEvent } from '../../store/repositories/events.js';
import type { OidcAppRow } from '../../store/repositories/oidc-apps.js';
import type { Repositories } from '../../store/store.js';
import type { RequestContext } from '../context.js';
import { changedDetails, type ObjectDetails } from '../details.js';
import { invalidArgument, notFound } from '../errors.js';
import { appendProjectEvent, appendProjectEvents } from '../projects/access.js';

/** Commands on one application run one after the other (Store.transaction's locks). */
export const APP_LOCK = 'app';

export const appNotFound = () => notFound('APP-ij33f', 'App not found');

export function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 200) throw invalidArgument('PROJECT-39mfs', 'Errors.Project.App.Invalid: name must have 1 to 200 characters');
  return trimmed;
}

/**
 * A new application of `project`: ZITADEL's two events (`project.application.added`, then
 * `project.application.config.<oidc|api>.added` carrying `settings`), its row, the project touched.
 * Returns the second event, whose position the row takes.
 */
export async function insertApp(
  tx: Repositories,
  ctx: RequestContext,
  project: { id: string; orgId: string },
  app: { id: string; name: string; clientId: string; appType: 'oidc' | 'api'; clientSecret: string | undefined; config: Record<string, unknown> },
  settings: Record<string, unknown>,
): Promise<StoredEvent> {
  const [, event] = await appendProjectEvents(tx, ctx, project, [
    ['project.application.added', { appId: app.id, name: app.name }],
    [`project.application.config.${app.appType}.added`, { appId: app.id, clientId: app.clientId, ...settings, hasSecret: !!app.clientSecret }],
  ]);
  await tx.oidcApps.insert({
    id: app.id,
    projectId: project.id,
    orgId: project.orgId,
    name: app.name,
    state: 'APP_STATE_ACTIVE',
    clientId: app.clientId,
    appType: app.appType,
    clientSecretHash: app.clientSecret ? hashToken(app.clientSecret) : null,
    config: app.config,
    sequence: event.sequence,
    createdAt: event.createdAt,
    changedAt: event.createdAt,
  });
  return event!;
}

/** What an application's row takes from a change (the event's position is added). */
type AppRowChange = Partial<Pick<OidcAppRow, 'name' | 'config' | 'clientSecretHash' | 'state'>>;

/**
 * A change to an existing application of `project`: the project's event of `type` (its payload
 * names the application), the application's row changed with the event's position, the project
 * touched. Returns the change's details.
 */
export async function recordAppChange(
  tx: Repositories,
  ctx: RequestContext,
  project: { id: string; orgId: string },
  row: Pick<OidcAppRow, 'id'>,
  change: { type: string; payload: Record<string, unknown>; row: AppRowChange },
): Promise<ObjectDetails> {
  const event = await appendProjectEvent(tx, ctx, project, change.type, { appId: row.id, ...change.payload });
  await tx.oidcApps.update(row.id, { ...change.row, sequence: event.sequence, changedAt: event.createdAt });
  return changedDetails(event);
}
