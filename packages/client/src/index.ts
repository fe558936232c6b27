/**
 * The typed client: openapi-fetch over the types generated from openapi/identity.yaml.
 *
 *   const api = createIdentityClient({ baseUrl: 'http://localhost:8080', token });
 *   const { data, error } = await api.PUT('/admin/v1/text/message/verifyemail/{language}', {
 *     params: { path: { language: 'en' } }, body: { title: 'Hi' } });
 *
 * `error` is the typed error body. `unwrap(await api.GET(...))` returns the data or throws an
 * `IdentityApiError` holding the status and the error body.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };
export type ErrorBody = components['schemas']['ErrorBody'];
export type IdentityClient = Client<paths>;

export interface IdentityClientOptions {
  baseUrl: string;
  /** A personal access token or an OAuth 2.0 access token. */
  token?: string;
  /** Sent as `x-service-orgid` on every call: act on this organisation. */
  orgId?: string;
  /** A fetch implementation (e.g. an in-process app's `fetch`); defaults to the global one. */
  fetch?: (request: Request) => Promise<Response>;
  headers?: Record<string, string>;
}

export class IdentityApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(`${status}: ${body.message}`);
    this.name = 'IdentityApiError';
  }

  /** The error id of the first detail, e.g. `COMMAND-1My0t`. */
  get id(): string | undefined {
    return this.body.details?.[0]?.id;
  }
}

export function createIdentityClient(options: IdentityClientOptions): IdentityClient {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.orgId) headers['x-service-orgid'] = options.orgId;
  return createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), headers, fetch: options.fetch });
}

type Result<T> = { data?: T; error?: unknown; response: Response };

/** The data of a successful call, or an IdentityApiError with the error body. */
export function unwrap<T>(result: Result<T>): T {
  if (result.error !== undefined || !result.response.ok) {
    throw new IdentityApiError(result.response.status, normaliseError(result.error, result.response));
  }
  return result.data as T;
}

function normaliseError(error: unknown, response: Response): ErrorBody {
  if (error && typeof error === 'object' && 'code' in error && 'message' in error) return error as ErrorBody;
  return { code: 2, message: `${response.status} ${response.statusText}`, details: [] };
}

/** A middleware that adds `x-service-orgid` to one client's calls (e.g. `client.use(actAs(orgId))`). */
export function actAs(orgId: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('x-service-orgid', orgId);
      return request;
    },
  };
}
