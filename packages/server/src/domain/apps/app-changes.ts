/**
 * Changes to an existing application that are not its OIDC settings: its name (ZITADEL's
 * UpdateApp) and a new client secret for a confidential client (RegenerateOIDCClientSecret).
 */
import { generateToken, hashToken } from '../../auth/tokens.js';
import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import type { ObjectDetails } from '../details.js';
import { failedPrecondition, invalidArgument } from '../errors.js';
import { projectForCaller } from '../projects/access.js';
import { APP_LOCK, appNotFound, checkName, recordAppChange } from './app-basics.js';
import { needsSecret, oidcAppFor } from './oidc-apps.js';
import { storedOidcConfig } from './oidc-config.js';

/** Renames the application. The same name again answers 400 (ZITADEL: `COMMAND-2m8vx` Errors.NoChangesFound). */
export async function updateApp(store: Store, ctx: RequestContext, projectId: string, appId: string, input: { name: string }): Promise<{ details: ObjectDetails }> {
  requirePermission(ctx, 'project.app.write');
  const name = checkName(input.name);
  return store.transaction(
    async (tx) => {
      const project = await projectForCaller(tx, ctx, projectId, 'project.app.write');
      const row = await tx.oidcApps.get(project.id, appId);
      if (!row) throw appNotFound();
      if (row.name === name) throw invalidArgument('COMMAND-2m8vx', 'Errors.NoChangesFound');
      return { details: await recordAppChange(tx, ctx, project, row, { type: 'project.application.changed', payload: { name }, row: { name } }) };
    },
    [[APP_LOCK, appId]],
  );
}

/**
 * Replaces a confidential client's secret; the old one stops working at once (only the new
 * hash is kept, and the provider re-reads the client on every request). A public client (auth
 * method NONE) or a PRIVATE_KEY_JWT one has no secret to regenerate: 400, as ZITADEL's
 * precondition error.
 */
export async function regenerateOidcClientSecret(store: Store, ctx: RequestContext, projectId: string, appId: string): Promise<{ clientSecret: string; details: ObjectDetails }> {
  requirePermission(ctx, 'project.app.write');
  return store.transaction(
    async (tx) => {
      const { project, row } = await oidcAppFor(tx, ctx, projectId, appId, 'RegenerateAPIClientSecret');
      if (!needsSecret(storedOidcConfig(row.config))) {
        throw failedPrecondition(
          'COMMAND-Ggh3a',
          'Errors.Project.App.OIDCAuthMethodNoSecret: a public client (auth method NONE) or one signing JWTs with its keys (PRIVATE_KEY_JWT) has no client secret',
        );
      }
      const clientSecret = generateToken();
      const details = await recordAppChange(tx, ctx, project, row, { type: 'project.application.config.oidc.secret.changed', payload: {}, row: { clientSecretHash: hashToken(clientSecret) } });
      return { clientSecret, details };
    },
    [[APP_LOCK, appId]],
  );
}
