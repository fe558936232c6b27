/**
 * Machine users' bearer credentials between instances of this service (this service's extensions
 * `identityServicePersonalAccessTokens` and `identityServiceMachineSecrets`, document.ts): the
 * SHA-256 hashes this service stores, so that the personal access tokens and client secrets made at
 * the source authenticate at the target unchanged. Each belongs to a machine user of this
 * organisation (imported now or before). Run in the organisation's transaction after its users, like
 * the keys (org-entry.ts). As every imported resource, a credential gets no event of its own.
 * A token is never changed (as through the API: made or removed), so an existing one stays; a
 * client secret is replaced under OVERWRITE (GenerateMachineSecret's event), its client id never.
 */

import { NO_EXPIRY } from '../../../auth/tokens.js';
import type { Repositories } from '../../../store/store.js';
import { USER_AGGREGATE } from '../../users/aggregate.js';
import type { DataOrg } from '../document.js';
import { msg, type OrgImport } from './report.js';

/** The machine user of this organisation that a credential names, or its refusal. */
async function machineUserOf(tx: Repositories, run: OrgImport, type: string, id: string, userId: string, what: string) {
  const user = await tx.users.get(userId);
  if (user && user.orgId === run.orgId && user.type === 'machine') return user;
  run.refuse(type, id, msg('COMMAND-Dggw2', `Errors.User.NotFound: ${userId} is no machine user of organisation ${run.orgId}, in the document or on this instance; the ${what} was not imported`));
  return undefined;
}

export async function importPersonalAccessTokens(tx: Repositories, tokens: NonNullable<DataOrg['identityServicePersonalAccessTokens']>, run: OrgImport): Promise<void> {
  const type = 'personal_access_token';
  const takenIds = await tx.transfer.existingTokenIds(tokens.map((t) => t.tokenId));
  const idByHash = await tx.transfer.tokensByHash(tokens.map((t) => t.tokenHash));
  const rows: Parameters<Repositories['transfer']['insertTokens']>[0] = [];
  for (const t of tokens) {
    const id = t.tokenId;
    const user = await machineUserOf(tx, run, type, id, t.userId, 'token');
    if (!user) continue;
    const expiresAt = t.expirationDate ? new Date(t.expirationDate) : NO_EXPIRY;
    if (!(expiresAt.getTime() > run.at.getTime())) {
      run.refuse(type, id, msg('IMPORT-p4tEx', `the token expired at ${expiresAt.toISOString()}; it could never be used and was not imported`));
      continue;
    }
    if (takenIds.has(id) || idByHash.has(t.tokenHash)) {
      // The same token is here when its id, user and hash are: anything else is another token's.
      const here = await tx.tokens.getForUser(user.id, id);
      if (!here || here.tokenHash !== t.tokenHash) {
        run.clash(type, id, msg('IMPORT-p4tTk', "the id or the token is another personal access token's here; the token was not imported"));
        continue;
      }
      if (run.exists(type, id, msg('IMPORT-p4tAl', 'Errors.User.PAT.AlreadyExists'))) run.unchanged(type, id, msg('IMPORT-p4tSt', 'a token is never changed; the one here stays'));
      continue;
    }
    takenIds.add(id);
    idByHash.set(t.tokenHash, id);
    rows.push({ id, userId: user.id, tokenHash: t.tokenHash, expiresAt, ...run.stamp });
    run.imported('personalAccessTokens', id);
  }
  await tx.transfer.insertTokens(rows);
}

export async function importMachineSecrets(tx: Repositories, secrets: NonNullable<DataOrg['identityServiceMachineSecrets']>, run: OrgImport): Promise<void> {
  const type = 'machine_secret';
  // An application's client id is looked up before a machine user's (oidc/clients.ts): it would shadow the secret.
  const appClientIds = await tx.transfer.existingClientIds(secrets.map((s) => s.clientId));
  for (const s of secrets) {
    const id = s.userId;
    const user = await machineUserOf(tx, run, type, id, s.userId, 'client secret');
    if (!user) continue;
    const holder = await tx.logins.machineSecrets.byClientId(s.clientId);
    if (appClientIds.has(s.clientId) || (holder && holder.userId !== user.id)) {
      run.clash(type, id, msg('IMPORT-cl1d0', `client id "${s.clientId}" is another client's here; the client secret was not imported`));
      continue;
    }
    const here = await tx.logins.machineSecrets.get(user.id);
    if (here) {
      if (here.clientId !== s.clientId) {
        run.clash(type, id, msg('IMPORT-cl1d1', `the machine user authenticates as "${here.clientId}" here; an import does not change a client id`));
        continue;
      }
      if (!run.exists(type, id, msg('COMMAND-x8910', 'Errors.User.Machine.Secret.AlreadyExists'))) continue;
      await run.overwrite(tx, {
        type,
        id,
        aggregate: [USER_AGGREGATE, user.id],
        eventType: 'user.machine.secret.set',
        payload: { clientId: s.clientId },
        current: { secretHash: here.secretHash },
        wanted: { secretHash: s.clientSecretHash },
        apply: (_, at) => tx.logins.machineSecrets.upsert({ userId: user.id, clientId: s.clientId, secretHash: s.clientSecretHash, createdAt: at.changedAt }),
      });
      continue;
    }
    await tx.logins.machineSecrets.upsert({ userId: user.id, clientId: s.clientId, secretHash: s.clientSecretHash, createdAt: run.at });
    run.imported('machineSecrets', id);
  }
}
