/**
 * The outbound side of identity providers (issue 11): reading a provider's keys never hangs and
 * never reads without bound, follows no redirect, re-reads on a rotated key but not on every
 * made-up key id; sealed browser state cannot be forged, altered or reused after it expires.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openOutcome, openUserAgent, STATE_TTL_MS, sealOutcome, sealUserAgent } from '../../src/domain/federation/browser-state.js';
import { validateProviderToken } from '../../src/domain/federation/jwt-token.js';
import { ProviderKeys, REREAD_COOLDOWN_MS } from '../../src/domain/federation/provider-keys.js';
import { fetchLimited, OutboundError } from '../../src/outbound/limited-fetch.js';
import { processSecretBox } from '../../src/secrets/secret-box.js';
import { type JwtIssuer, startJwtIssuer } from '../support/jwt-idp.js';

describe('outbound calls to configured addresses', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2_000);
      if (req.url === '/big') return void res.end('x'.repeat(10_000));
      if (req.url === '/big-chunked') {
        res.write('x'.repeat(6_000));
        return void res.end('x'.repeat(6_000));
      }
      if (req.url === '/redirect') return void res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
      res.end('ok');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  const limits = { timeoutMs: 300, maxBytes: 8_000 };

  it('answers within the limits', async () => {
    expect((await fetchLimited(`${base}/`, limits)).body.toString()).toBe('ok');
  });
  it('a slow answer ends at the deadline with a clear error', async () => {
    const started = Date.now();
    await expect(fetchLimited(`${base}/slow`, limits)).rejects.toThrow(/did not answer within 0.3 s/);
    expect(Date.now() - started).toBeLessThan(1_500);
  });
  it('an answer over the size limit is refused, declared or streamed', async () => {
    await expect(fetchLimited(`${base}/big`, limits)).rejects.toThrow(/more than 8000 bytes/);
    await expect(fetchLimited(`${base}/big-chunked`, limits)).rejects.toThrow(/more than 8000 bytes/);
  });
  it('a redirect is not followed; an unreachable host and a non-http URL are clear errors', async () => {
    await expect(fetchLimited(`${base}/redirect`, limits)).rejects.toThrow(/redirect \(302\), which is not followed/);
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await expect(fetchLimited(`http://127.0.0.1:${port}/keys`, limits)).rejects.toThrow(/could not be reached \(ECONNREFUSED\)/);
    await expect(fetchLimited('file:///etc/passwd', limits)).rejects.toBeInstanceOf(OutboundError);
  });
});

describe("a provider's keys", () => {
  let jwt: JwtIssuer;
  beforeAll(async () => {
    jwt = await startJwtIssuer();
  });
  afterAll(() => jwt.close());

  it('are cached, re-read when the provider rotates, and not re-read for every unknown key id', async () => {
    let now = Date.now();
    const keys = new ProviderKeys(undefined, () => now);
    const provider = { issuer: jwt.issuer, keysEndpoint: jwt.keysEndpoint, headerName: 'x', audience: '' };
    const reads = jwt.keyReads();
    await validateProviderToken(await jwt.sign({ sub: 'a' }), provider, keys);
    await validateProviderToken(await jwt.sign({ sub: 'a' }), provider, keys);
    expect(jwt.keyReads() - reads).toBe(1);

    await jwt.rotate();
    // Within the cool-down an unknown kid does not trigger a read: the token is refused.
    const rotated = await jwt.sign({ sub: 'a' });
    await expect(validateProviderToken(rotated, provider, keys)).rejects.toThrow(/signature does not match/);
    expect(jwt.keyReads() - reads).toBe(1);
    now += REREAD_COOLDOWN_MS + 1;
    expect((await validateProviderToken(rotated, provider, keys, new Date(now))).sub).toBe('a');
    expect(jwt.keyReads() - reads).toBe(2);
  });
});

describe('sealed browser state', () => {
  const box = processSecretBox();
  it('opens only unaltered, unexpired and for its own purpose', () => {
    const now = Date.now();
    const sealed = sealUserAgent(box, { uid: 'u1', idpId: 'i1', agent: 'a1' }, now);
    expect(openUserAgent(box, sealed, now + 1000)).toMatchObject({ uid: 'u1', idpId: 'i1', agent: 'a1' });
    expect(openUserAgent(box, sealed, now + STATE_TTL_MS + 1)).toBeUndefined();
    const altered = sealed.slice(0, -4) + (sealed.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect(openUserAgent(box, altered, now)).toBeUndefined();
    // A userAgentID cannot stand in for an outcome (different purpose), nor the other way round.
    expect(openOutcome(box, sealed, now)).toBeUndefined();
    const outcome = sealOutcome(box, { uid: 'u1', agent: 'a1', outcome: { kind: 'signed-in', userId: 'x' } }, now);
    expect(openUserAgent(box, outcome, now)).toBeUndefined();
    expect(openUserAgent(box, 'not sealed', now)).toBeUndefined();
  });
});
