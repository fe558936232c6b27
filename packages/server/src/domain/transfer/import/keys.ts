/**
 * An organisation's keys in an import (ZITADEL's `machineKeys` and `appKeys`): public keys only,
 * with their ids and expirations, so key files made before the move keep working after it. Run
 * in the organisation's transaction after its users and applications (org-entry.ts). As every
 * imported resource, a key gets no event of its own (the organisation's `org.data.imported` is the
 * record); a key that exists already is reported and skipped, so a second run adds nothing.
 */

import { NO_EXPIRY } from '../../../auth/tokens.js';
import type { Repositories } from '../../../store/store.js';
import { usesPrivateKeyJwt } from '../../apps/app-keys.js';
import { DomainError } from '../../errors.js';
import { rsaPublicKeyPem } from '../../key-pairs.js';
import type { DataOrg } from '../document.js';
import { msg, type OrgImport } from './report.js';

/** OVERWRITE leaves a key as it is: a key is never changed, only added or removed (as through the API). */
const KEYS_STAY = msg('IMPORT-k3ySt', 'a key with this id exists; keys are never changed, the one here stays');

type DocumentKey = { type?: string; expirationDate?: string; publicKey?: string };

/** The key's row fields, or why it cannot be imported (an error entry of `type` for `id`). */
function keyFields(key: DocumentKey, type: string, id: string, c: OrgImport) {
  const fail = (message: string) => c.refuse(type, id, message);
  if (!key.publicKey) return fail(msg('IMPORT-k3yPb', 'the key has no publicKey; only public keys can be imported'));
  let publicKey: string;
  try {
    publicKey = rsaPublicKeyPem(key.publicKey);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return fail(msg(error.id, error.message));
  }
  // ZITADEL's import refuses an expired key (Errors.AuthNKey.ExpireBeforeNow): it could never be used.
  const expiresAt = key.expirationDate ? new Date(key.expirationDate) : NO_EXPIRY;
  if (!(expiresAt.getTime() > c.at.getTime())) return fail(msg('DOMAIN-dv3t5', `Errors.AuthNKey.ExpireBeforeNow: the key expired at ${expiresAt.toISOString()}`));
  return { publicKey, expiresAt, type: key.type && key.type !== 'KEY_TYPE_UNSPECIFIED' ? key.type : 'KEY_TYPE_JSON' };
}

/** Machine users' keys: each of a machine user of this organisation (imported now or before). */
export async function importMachineKeys(tx: Repositories, keys: NonNullable<DataOrg['machineKeys']>, c: OrgImport): Promise<void> {
  const taken = await tx.transfer.existingMachineKeyIds(keys.map((k) => k.keyId ?? ''));
  const rows: Parameters<Repositories['transfer']['insertMachineKeys']>[0] = [];
  for (const k of keys) {
    const id = k.keyId ?? '';
    const type = 'machine_user_key';
    const user = k.userId ? await tx.users.get(k.userId) : undefined;
    if (!user || user.orgId !== c.orgId || user.type !== 'machine') {
      c.refuse(
        type,
        id,
        msg('COMMAND-Dggw2', `Errors.User.NotFound: ${k.userId ?? '(no userId)'} is no machine user of organisation ${c.orgId}, in the document or on this instance; the key was not imported`),
      );
      continue;
    }
    if (!id) {
      c.refuse(type, id, msg('COMMAND-091mops', 'the key has no keyId'));
      continue;
    }
    if (taken.has(id)) {
      if (c.exists(type, id, msg('COMMAND-091mops', 'Errors.User.Machine.Key.AlreadyExists'))) c.unchanged(type, id, KEYS_STAY);
      continue;
    }
    if (!(await c.mayChangeUser(tx, type, id, user.id))) continue;
    const fields = keyFields(k, type, id, c);
    if (!fields) continue;
    taken.add(id);
    rows.push({ id, userId: user.id, orgId: c.orgId, ...fields, ...c.stamp });
    c.imported('machineKeys', id);
  }
  await tx.transfer.insertMachineKeys(rows);
}

/**
 * Applications' keys: each of a PRIVATE_KEY_JWT application of this organisation (imported now or
 * before). The key is the application's, under its client id here (apps.ts keeps the
 * document's client id for an application whose keys name it, so their key files still match).
 */
export async function importAppKeys(tx: Repositories, keys: NonNullable<DataOrg['appKeys']>, c: OrgImport): Promise<void> {
  const taken = await tx.transfer.existingAppKeyIds(keys.map((k) => k.id ?? ''));
  const rows: Parameters<Repositories['transfer']['insertAppKeys']>[0] = [];
  for (const k of keys) {
    const id = k.id ?? '';
    const type = 'app_key';
    const app = k.projectId && k.appId ? await tx.oidcApps.get(k.projectId, k.appId) : undefined;
    if (!app || app.orgId !== c.orgId) {
      c.refuse(
        type,
        id,
        msg('PROJECT-n0tF0', `Errors.Project.App.NotFound: ${k.appId ?? '(no appId)'} is no application of project ${k.projectId ?? '(none)'} in organisation ${c.orgId}; the key was not imported`),
      );
      continue;
    }
    if (!usesPrivateKeyJwt(app)) {
      c.refuse(type, id, msg('COMMAND-Dff54', 'Errors.Project.App.AuthMethodNoPrivateKeyJWT: the application does not authenticate with keys (PRIVATE_KEY_JWT); the key was not imported'));
      continue;
    }
    if (!id) {
      c.refuse(type, id, msg('COMMAND-k3yEx', 'the key has no id'));
      continue;
    }
    if (taken.has(id)) {
      if (c.exists(type, id, msg('COMMAND-k3yEx', 'Errors.Project.App.Key.AlreadyExisting'))) c.unchanged(type, id, KEYS_STAY);
      continue;
    }
    const fields = keyFields(k, type, id, c);
    if (!fields) continue;
    taken.add(id);
    rows.push({ id, appId: app.id, projectId: app.projectId, orgId: c.orgId, clientId: app.clientId, ...fields, ...c.stamp });
    c.imported('appKeys', id);
  }
  await tx.transfer.insertAppKeys(rows);
}
