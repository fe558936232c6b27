/**
 * The peer for the OAuth hot paths: a bare oidc-provider (the library the service's authorization
 * server is built on) with its in-memory adapter, one confidential client allowed the
 * client-credentials grant, and RS256 JWT access tokens for one resource, as the service issues for
 * a machine user with JWT tokens. No store, no accounts, no policies: what issuing, introspecting
 * and answering userinfo cost with nothing around them. Run as a child process (bench/…bench.ts).
 *
 * Client: id `bench`, secret `bench-secret`. Resources: `urn:bench:api` (the default; JWT access
 * tokens) and `urn:bench:opaque` (opaque ones: oidc-provider introspects only those it stores).
 *
 * Userinfo: oidc-provider answers userinfo only for its own opaque tokens without a resource (it
 * refuses JWT access tokens, which always name an audience), so a person's token for the web
 * client `bench-web` (scope `openid profile email`, account `bench-person`) is minted at start,
 * as the end of a code flow would store it, and written to the file named by USERINFO_TOKEN_FILE.
 */
import { writeFileSync } from 'node:fs';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const jwk = { ...(await exportJWK(privateKey)), kid: 'bench', alg: 'RS256', use: 'sig' };

const provider = new Provider(issuer, {
  clients: [
    { client_id: 'bench', client_secret: 'bench-secret', grant_types: ['client_credentials'], response_types: [], redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic' },
    { client_id: 'bench-web', client_secret: 'bench-web-secret', grant_types: ['authorization_code'], response_types: ['code'], redirect_uris: ['http://127.0.0.1:1/callback'] },
  ],
  claims: { openid: ['sub'], profile: ['name', 'given_name', 'family_name', 'preferred_username', 'locale'], email: ['email', 'email_verified'] },
  // The person's claims as the service answers them for a human user (no store behind them here).
  findAccount: (_ctx: unknown, sub: string) => ({
    accountId: sub,
    claims: () => ({ sub, name: 'Bench Person', given_name: 'Bench', family_name: 'Person', preferred_username: 'bench-person', locale: 'en', email: 'bench@example.com', email_verified: true }),
  }),
  jwks: { keys: [jwk as never] },
  scopes: ['openid', 'api', 'profile', 'email'],
  ttl: { ClientCredentials: 3600 },
  features: {
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => 'urn:bench:api',
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx: unknown, resource: string) =>
        resource === 'urn:bench:opaque'
          ? { scope: 'api', audience: resource, accessTokenFormat: 'opaque', accessTokenTTL: 3600 }
          : { scope: 'api', audience: 'urn:bench:api', accessTokenFormat: 'jwt', accessTokenTTL: 3600, jwt: { sign: { alg: 'RS256' } } },
    },
  },
});

const tokenFile = process.env.USERINFO_TOKEN_FILE;
if (tokenFile) {
  const client = await provider.Client.find('bench-web');
  if (!client) throw new Error('the bench-web client is missing');
  const grant = new provider.Grant({ accountId: 'bench-person', clientId: 'bench-web' });
  grant.addOIDCScope('openid profile email');
  const grantId = await grant.save();
  const token = new provider.AccessToken({ accountId: 'bench-person', client, grantId, scope: 'openid profile email', gty: 'authorization_code' });
  writeFileSync(tokenFile, await token.save());
}
provider.listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
