/**
 * Public keys of machine users and applications (ZITADEL's DataMachineKey and DataAppKey;
 * import/keys.ts), only when the request asks for them (`withKeys`): the public key as base64 of
 * its PEM (ZITADEL's bytes).
 */
import { listField, type OrgExport } from './section.js';

const pem = (publicKey: string) => Buffer.from(publicKey).toString('base64');

export async function* keys(o: OrgExport): AsyncGenerator<string> {
  if (!o.req.withKeys) return;
  const machineKeys = await o.read.transfer.machineKeysOf(o.org.id);
  yield* listField(
    'machineKeys',
    machineKeys.map((k) => ({ keyId: k.id, userId: k.userId, type: k.type, expirationDate: k.expiresAt.toISOString(), publicKey: pem(k.publicKey) })),
  );
  const appKeys = await o.read.transfer.appKeysOf(o.org.id);
  yield* listField(
    'appKeys',
    appKeys.map((k) => ({
      id: k.id,
      projectId: k.projectId,
      appId: k.appId,
      clientId: k.clientId,
      type: k.type,
      expirationDate: k.expiresAt.toISOString(),
      publicKey: pem(k.publicKey),
    })),
  );
}
