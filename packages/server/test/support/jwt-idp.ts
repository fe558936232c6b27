/**
 * What a JWT identity provider is made of in ZITADEL's setup, on loopback: an issuer with its
 * keys (made with jose) served as a JWKS, and the "legacy application" proxy in front of the
 * sign-in, which adds the signed-in user's JWT in a header and forwards the browser's request
 * (query unchanged) to the service's `/ui/login/login/jwt/authorize`, relaying the answer.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface JwtIssuer {
  issuer: string;
  keysEndpoint: string;
  /** How often the JWKS was served. */
  keyReads: () => number;
  /**
   * A token of this issuer (its key unless `foreignKey`): `exp` five minutes on unless `expiresIn`
   * says otherwise (`null`: none), `iat` now unless `iat` says otherwise (`null`: none), `aud` if given.
   */
  sign: (claims: JWTPayload, options?: { foreignKey?: boolean; issuer?: string; expiresIn?: string | number | null; iat?: number | null; audience?: string | string[] }) => Promise<string>;
  /** A new signing key (the old one leaves the JWKS). */
  rotate: () => Promise<void>;
  close: () => Promise<void>;
}

export async function startJwtIssuer(): Promise<JwtIssuer> {
  let current = await newKey('k1');
  const foreign = await newKey('k1'); // same kid, another key: a forged signature
  let reads = 0;
  const server = createServer(async (req, res) => {
    if (req.url === '/keys') {
      reads++;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [current.publicJwk] }));
    } else res.writeHead(404).end();
  });
  const origin = await listen(server);
  const issuer = `${origin}/legacy`;
  return {
    issuer,
    keysEndpoint: `${origin}/keys`,
    keyReads: () => reads,
    async sign(claims, options = {}) {
      const key = options.foreignKey ? foreign : current;
      const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: key.kid }).setIssuer(options.issuer ?? issuer);
      if (options.iat !== null) jwt.setIssuedAt(options.iat);
      if (options.expiresIn !== null) jwt.setExpirationTime(options.expiresIn ?? '5m');
      if (options.audience !== undefined) jwt.setAudience(options.audience);
      return jwt.sign(key.privateKey);
    },
    async rotate() {
      current = await newKey(`k${Date.now()}`);
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

async function newKey(kid: string) {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

export interface LegacyProxy {
  /** The provider's `jwtEndpoint`. */
  jwtEndpoint: string;
  /** The token the "signed-in user" of the legacy application has (undefined: none, no header). */
  setToken: (token: string | undefined) => void;
  close: () => Promise<void>;
}

export async function startLegacyProxy(serviceOrigin: string, headerName: string, prefix = 'Bearer '): Promise<LegacyProxy> {
  let token: string | undefined;
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    if (url.pathname !== '/jwt') return void res.writeHead(404).end();
    const upstream = await fetch(`${serviceOrigin}/ui/login/login/jwt/authorize${url.search}`, {
      headers: token ? { [headerName]: `${prefix}${token}` } : {},
      redirect: 'manual',
    });
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'location']) {
      const value = upstream.headers.get(name);
      if (value) headers[name] = value;
    }
    res.writeHead(upstream.status, headers);
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  const origin = await listen(server);
  return {
    jwtEndpoint: `${origin}/jwt`,
    setToken: (t) => {
      token = t;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
