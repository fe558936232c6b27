/**
 * Shapes shared by many routes. Each mirrors a schema of openapi/components/schemas; the
 * contract tests fail when they drift apart.
 */
import { z } from '@hono/zod-openapi';
import { TEXT_QUERY_METHODS } from '../../domain/list.js';

export const Details = z
  .object({
    sequence: z.string().optional(),
    creationDate: z.string().optional(),
    changeDate: z.string().optional(),
    resourceOwner: z.string().optional(),
  })
  .openapi('Details');

export const ErrorBody = z
  .object({
    code: z.number().int(),
    message: z.string(),
    details: z.array(
      z.object({ '@type': z.literal('type.googleapis.com/zitadel.v1.ErrorDetail'), id: z.string(), message: z.string(), requestId: z.string().optional() }),
    ),
  })
  .openapi('ErrorBody');

export const DetailsResponse = z.object({ details: Details });

/** Paging of list calls (ZITADEL's ListQuery); offset is a uint64, accepted as string or number. */
export const ListQuery = z
  .object({
    offset: z.union([z.string().regex(/^[0-9]+$/), z.number().int().min(0)]).optional(),
    limit: z.number().int().min(0).max(1000).optional(),
    asc: z.boolean().optional(),
  })
  .openapi('ListQuery');

export const ListDetails = z
  .object({ totalResult: z.string(), viewTimestamp: z.string() })
  .openapi('ListDetails');

export const TextQueryMethod = z
  .enum(TEXT_QUERY_METHODS)
  .openapi('TextQueryMethod');

/** The optional organisation-context header of every management operation. */
export const OrgHeader = z.object({ 'x-service-orgid': z.string().max(200).optional() });

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request: the message names the field.',
  401: 'Missing, malformed, unknown or expired token.',
  403: 'The caller lacks the permission, or the organisation does not exist.',
  404: 'The resource does not exist.',
  409: 'The resource already exists.',
  413: 'The request body is larger than allowed.',
  429: 'Too many such requests at once; retry later (Retry-After).',
};

/** Response entries for the error statuses a route can answer with. */
export function errorResponses<S extends keyof typeof ERROR_DESCRIPTIONS>(...statuses: S[]) {
  return Object.fromEntries(
    statuses.map((s) => [s, { description: ERROR_DESCRIPTIONS[s], content: { 'application/json': { schema: ErrorBody } } }]),
  ) as Record<S, { description: string; content: { 'application/json': { schema: typeof ErrorBody } } }>;
}

/** A required JSON request body, for `createRoute({ request: { body } })`. */
export const jsonBody = <T>(schema: T) => ({ required: true, content: { 'application/json': { schema } } });

/** A response with a JSON body, for `createRoute({ responses: { 200: … } })`. */
export const jsonResponse = <T>(description: string, schema: T) => ({ description, content: { 'application/json': { schema } } });

/** Either a personal access token or an OAuth 2.0 access token with the API audience. */
export const SECURED: Record<string, string[]>[] = [
  { bearerAuth: [] },
  { oauth2: ['openid', 'urn:service:iam:org:project:id:service:aud'] },
];
