/**
 * Marks a deprecated operation's every response (RFC 9745): `Deprecation: @<epoch seconds>`
 * and `Link` headers to the operation's entry in /docs (`rel="deprecation"`) and to what
 * replaces it (`rel="successor-version"`). Listed in a route's middleware before `auth`, so
 * 401s, 403s and validation errors carry the headers as well as successes.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.js';

export interface DeprecationNotice {
  /** When the operation became deprecated. */
  since: Date;
  /** The documentation of the deprecation (a URI reference; relative is resolved against the request). */
  docs: string;
  /** Documentation of the replacement. */
  successor: string;
}

export function deprecation(notice: DeprecationNotice): MiddlewareHandler<AppEnv> {
  const value = `@${Math.floor(notice.since.getTime() / 1000)}`;
  const links = [`<${notice.docs}>; rel="deprecation"`, `<${notice.successor}>; rel="successor-version"`];
  return async (c, next) => {
    // Errors thrown further in are turned into responses before `next` returns (Hono's
    // compose runs onError at the throwing layer), so c.res is the final response here.
    await next();
    c.res.headers.set('Deprecation', value);
    c.res.headers.delete('Link');
    for (const link of links) c.res.headers.append('Link', link);
  };
}

/** The v1 identity-provider operations (ZITADEL marks them deprecated): since 2023-06-30T23:59:59Z. */
export const IDP_V1_DEPRECATED_SINCE = new Date('2023-06-30T23:59:59Z');
/** What replaces them: ZITADEL's identity-provider settings (its generic JWT provider). */
export const IDP_SUCCESSOR_DOCS = 'https://zitadel.com/docs/guides/integrate/identity-providers/jwt_idp';

/** The notice for one operation of the "Identity providers" tag. */
export function idpDeprecation(operationId: string): MiddlewareHandler<AppEnv> {
  return deprecation({
    since: IDP_V1_DEPRECATED_SINCE,
    docs: `/docs#/Identity%20providers/${operationId}`,
    successor: IDP_SUCCESSOR_DOCS,
  });
}
