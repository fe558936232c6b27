/**
 * The peer for the OAuth hot paths: a bare oidc-provider (the library the service's authorization
 * server is built on) with its in-memory adapter, one confidential client allowed the
 * client-credentials grant, and RS256 JWT access tokens for one resource, as the service issues for
 * a machine user with JWT tokens. No store, no accounts, no policies: what issuing, introspecting
 * and answering userinfo cost with nothing around them. Run as a child process (bench/…bench.ts).
 *
 * Client: id `bench`, secret `bench-secret`. Resources: `urn:bench:api` (the default; JWT access
 * tokens) and `urn:bench:opaque` (opaque ones: oidc-provider introspects only those it stores).
 */
import { generateKeyPair, exportJWK } from 'jose';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const jwk = { ...(await exportJWK(privateKey)), kid: 'bench', alg: 'RS256', use: 'sig' };

const provider = new Provider(issuer, {
  clients: [{ client_id: 'bench', client_secret: 'bench-secret', grant_types: ['client_credentials'], response_types: [], redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic' }],
  jwks: { keys: [jwk as never] },
  scopes: ['openid', 'api'],
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
provider.listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
