/**
 * The organisation's OIDC and API applications. They share one table, so one set of taken ids and
 * client ids. A document exported by this service carries the client's credentials
 * (identityServiceClient): kept, so relying parties keep working after the move. Otherwise new ones,
 * as in ZITADEL; a confidential client then gets a secret nobody knows until it is regenerated. The
 * configuration takes AddOIDCApp's defaults (withDefaults, domain/apps/oidc-config.ts).
 */

import { generateToken, hashToken } from '../../../auth/tokens.js';
import type { Repositories } from '../../../store/store.js';
import { type OidcAppInput, withDefaults } from '../../apps/oidc-config.js';
import { newId } from '../../ids.js';
import { PROJECT_AGGREGATE } from '../../projects/access.js';
import type { DataOrg } from '../document.js';
import { importPart } from '../history.js';
import { importedState } from '../resource-states.js';
import { msg, type OrgImport, stripUndefined } from './report.js';

export interface AppImportInput {
  oidcApps: NonNullable<DataOrg['oidcApps']>;
  apiApps: NonNullable<DataOrg['apiApps']>;
  /** ZITADEL's keys of the organisation's applications: they name the client ids to keep. */
  appKeys: NonNullable<DataOrg['appKeys']>;
  /** Names of the projects imported now, by id (the client id's suffix). */
  projectNames: Map<string, string>;
}

export async function importApps(tx: Repositories, input: AppImportInput, run: OrgImport): Promise<void> {
  const { orgId } = run;
  const { oidcApps: apps, apiApps, projectNames } = input;
  const everyApp = [...apps, ...apiApps];
  const { inThisOrg } = await run.projects(
    tx,
    everyApp.map((a) => a.app.projectId),
  );
  const takenApps = await tx.transfer.existingOidcAppIds(everyApp.map((a) => a.appId));
  const takenClientIds = await tx.transfer.existingClientIds(everyApp.flatMap((a) => (a.identityServiceClient ? [a.identityServiceClient.clientId] : [])));
  const appRows: Parameters<Repositories['transfer']['insertOidcApps']>[0] = [];
  // A ZITADEL document names an application's client id only in its keys (appKeys): kept, so the
  // key files made before the move (whose `clientId` signs the assertions) still match.
  const keyClientIds = new Map(input.appKeys.flatMap((k) => (k.appId && k.clientId ? [[k.appId, k.clientId] as const] : [])));
  const credentials = (type: string, appId: string, projectId: string, given: { clientId: string; clientSecretHash?: string } | undefined) => {
    const kept = given ?? (keyClientIds.has(appId) ? { clientId: keyClientIds.get(appId)! } : undefined);
    const slug = (projectNames.get(projectId) ?? projectId).toLowerCase().replace(/[^a-z0-9]+/g, '');
    let clientId = `${newId()}@${slug || 'project'}`;
    if (kept && takenClientIds.has(kept.clientId)) {
      run.clash(type, appId, msg('IMPORT-cl1d0', `client id "${kept.clientId}" is taken on this instance; the application was imported with the new client id ${clientId} and needs a new secret`));
    } else if (kept) {
      clientId = kept.clientId;
      takenClientIds.add(clientId);
    }
    // Else a secret nobody knows, hashed as every client secret is (one encoding in the store and the document).
    const secretHash = (kept && clientId === kept.clientId ? kept.clientSecretHash : undefined) ?? hashToken(generateToken());
    return { clientId, secretHash };
  };
  /**
   * An application whose id is taken: under OVERWRITE its name, configuration and state take the
   * document's, and its secret's hash when the document carries this client's. Its client id stays:
   * relying parties here use it.
   */
  const existing = async (
    type: string,
    a: { appId: string; state?: string; app: { projectId: string }; identityServiceClient?: { clientId: string; clientSecretHash?: string } },
    wanted: Record<string, unknown>,
  ) => {
    const here = await tx.oidcApps.get(a.app.projectId, a.appId);
    // Another project's application (or another of the document's): refused under every policy.
    if ((!here || here.orgId !== orgId) && run.policy !== 'REPORT') {
      return run.clash(type, a.appId, msg('PROJECT-lxowmp', 'Errors.Project.App.AlreadyExisting: the id is another application here'));
    }
    if (!run.exists(type, a.appId, msg('PROJECT-lxowmp', 'Errors.Project.App.AlreadyExisting')) || !here) return;
    const given = a.identityServiceClient;
    const secret = given?.clientSecretHash && given.clientId === here.clientId && here.clientSecretHash ? { clientSecretHash: given.clientSecretHash } : {};
    await run.overwrite(tx, {
      type,
      id: a.appId,
      aggregate: [PROJECT_AGGREGATE, here.projectId],
      eventType: 'project.application.changed',
      payload: { appId: a.appId },
      current: { name: here.name, config: here.config, state: here.state, ...(secret.clientSecretHash ? { clientSecretHash: here.clientSecretHash } : {}) },
      wanted: { ...wanted, state: importedState(a.state, 'APP_STATE_INACTIVE'), ...secret },
      stateEvent: (to) => (to === 'APP_STATE_INACTIVE' ? 'project.application.deactivated' : 'project.application.reactivated'),
      apply: (change, at) => tx.oidcApps.update(a.appId, { ...change, sequence: at.sequence, changedAt: at.changedAt }),
    });
  };
  // An application of a project created here with its history (history.ts): the import's event for it, its row created when the source created it.
  const stampOf = (projectId: string, appId: string) => importPart(tx, run, 'app', { parentId: projectId, id: appId, resourceOwner: orgId }, run.stamp);
  for (const a of apps) {
    if (!inThisOrg(a.app.projectId, 'oidc_app', a.appId)) continue;
    const { projectId, name, ...config } = a.app;
    // The same defaults as AddOIDCApp: the document may leave any optional field out.
    const fullConfig = withDefaults(stripUndefined(config) as OidcAppInput) as unknown as Record<string, unknown>;
    if (takenApps.has(a.appId)) {
      await existing('oidc_app', a, { name, config: fullConfig });
      continue;
    }
    takenApps.add(a.appId);
    // NONE (public) and PRIVATE_KEY_JWT (keys, imported with the organisation's keys) have no secret.
    const publicClient = config.authMethodType === 'OIDC_AUTH_METHOD_TYPE_NONE' || config.authMethodType === 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT';
    const { clientId, secretHash } = credentials('oidc_app', a.appId, projectId, a.identityServiceClient);
    appRows.push({
      id: a.appId,
      projectId,
      orgId,
      name,
      state: importedState(a.state, 'APP_STATE_INACTIVE'),
      clientId,
      clientSecretHash: publicClient ? null : secretHash,
      config: fullConfig,
      ...(await stampOf(projectId, a.appId)),
    });
    run.imported('oidcAppIds', a.appId);
  }
  // API applications (domain/apps/api-apps.ts): credentials as for OIDC applications above.
  for (const a of apiApps) {
    if (!inThisOrg(a.app.projectId, 'api_app', a.appId)) continue;
    const authMethodType = a.app.authMethodType ?? 'API_AUTH_METHOD_TYPE_BASIC';
    if (takenApps.has(a.appId)) {
      await existing('api_app', a, { name: a.app.name, config: { authMethodType } });
      continue;
    }
    takenApps.add(a.appId);
    const { clientId, secretHash } = credentials('api_app', a.appId, a.app.projectId, a.identityServiceClient);
    // A PRIVATE_KEY_JWT application has no secret: its keys (appKeys) are imported later.
    appRows.push({
      id: a.appId,
      projectId: a.app.projectId,
      orgId,
      name: a.app.name,
      state: importedState(a.state, 'APP_STATE_INACTIVE'),
      clientId,
      appType: 'api',
      clientSecretHash: authMethodType === 'API_AUTH_METHOD_TYPE_BASIC' ? secretHash : null,
      config: { authMethodType },
      ...(await stampOf(a.app.projectId, a.appId)),
    });
    run.imported('apiAppIds', a.appId);
  }
  await tx.transfer.insertOidcApps(appRows);
}
