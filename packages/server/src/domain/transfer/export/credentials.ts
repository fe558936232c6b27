/**
 * This service's extensions (import/credentials.ts), with the keys (`withKeys`): the rest of a
 * service account's credentials, personal access tokens and client secrets, as the hashes stored
 * here, so a service account works at a target running this service as it did at the source.
 */
import { listField, type OrgExport } from './section.js';

export async function* credentials(o: OrgExport): AsyncGenerator<string> {
  if (!o.req.withKeys) return;
  const tokens = await o.read.transfer.tokensOf(o.org.id);
  yield* listField(
    'identityServicePersonalAccessTokens',
    tokens.map((t) => ({ tokenId: t.id, userId: t.userId, expirationDate: t.expiresAt.toISOString(), tokenHash: t.tokenHash })),
  );
  const secrets = await o.read.transfer.machineSecretsOf(o.org.id);
  yield* listField(
    'identityServiceMachineSecrets',
    secrets.map((s) => ({ userId: s.userId, clientId: s.clientId, clientSecretHash: s.secretHash })),
  );
}
