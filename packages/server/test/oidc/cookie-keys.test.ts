/**
 * oidc-provider's cookies are signed by `cookieSigner` (src/oidc/cookie-keys.ts) in Keygrip's
 * format, so a cookie a browser holds from before keeps working. The expected digests were made
 * by Keygrip 1.1.0 itself (koa's signer: `Keygrip(['first-secret', 'second-secret']).sign('_session=abc')`
 * and `Keygrip(['second-secret']).sign(…)`), and are kept here as fixed vectors.
 */
import { describe, expect, it } from 'vitest';
import { cookieSigner } from '../../src/oidc/cookie-keys.js';

const DATA = '_session=abc';
const BY_FIRST = 'gso-d1G0CN4yRGwzklvnxF3EJGk';
const BY_SECOND = 'l-1Zu5e2daGjKqoSDiwe5_tK7as';

describe('cookie signer', () => {
  const signer = cookieSigner(['first-secret', 'second-secret']);

  it('signs with the first secret as Keygrip does', () => {
    expect(signer.sign(DATA)).toBe(BY_FIRST);
    expect(cookieSigner(['second-secret']).sign(DATA)).toBe(BY_SECOND);
  });

  it('names the secret that signed, so a cookie of the previous secret is read and signed again', () => {
    expect(signer.index(DATA, BY_FIRST)).toBe(0);
    expect(signer.index(DATA, BY_SECOND)).toBe(1);
    expect(signer.verify(DATA, BY_SECOND)).toBe(true);
  });

  it('refuses a digest of other data, another length, or of no secret it holds', () => {
    expect(signer.index('_session=abd', BY_FIRST)).toBe(-1);
    expect(signer.index(DATA, BY_FIRST.slice(0, -1))).toBe(-1);
    expect(signer.index(DATA, `${BY_FIRST}A`)).toBe(-1);
    expect(signer.index(DATA, '')).toBe(-1);
    expect(cookieSigner(['third-secret']).verify(DATA, BY_FIRST)).toBe(false);
  });

  it('needs a secret', () => {
    expect(() => cookieSigner([])).toThrow(/at least one/);
  });
});
