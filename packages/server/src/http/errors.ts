/**
 * The one place a failure becomes an HTTP response: ZITADEL's body
 * `{code, message, details: [{"@type", id, message}]}` with grpc-gateway's status mapping
 * (reference §6.1). Every error body also carries the request id, to find its log line.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError, ZodIssue } from 'zod';
import { DomainError, GrpcCode, RateLimited, UniqueViolation } from '../domain/errors.js';
import { UNSTORABLE_TEXT_MESSAGE } from '../domain/unstorable-text.js';
import { describeZodIssue, formatPath } from '../domain/zod-issues.js';
import type { AppEnv } from './env.js';
import { PATTERN_MESSAGES } from './generated/operations.gen.js';

export const ERROR_DETAIL_TYPE = 'type.googleapis.com/zitadel.v1.ErrorDetail';

const HTTP_STATUS: Record<number, ContentfulStatusCode> = {
  [GrpcCode.Canceled]: 499 as ContentfulStatusCode,
  [GrpcCode.Unknown]: 500,
  [GrpcCode.InvalidArgument]: 400,
  [GrpcCode.DeadlineExceeded]: 504,
  [GrpcCode.NotFound]: 404,
  [GrpcCode.AlreadyExists]: 409,
  [GrpcCode.PermissionDenied]: 403,
  [GrpcCode.ResourceExhausted]: 429,
  [GrpcCode.FailedPrecondition]: 400,
  [GrpcCode.Aborted]: 409,
  [GrpcCode.OutOfRange]: 400,
  [GrpcCode.Unimplemented]: 501,
  [GrpcCode.Internal]: 500,
  [GrpcCode.Unavailable]: 503,
  [GrpcCode.DataLoss]: 500,
  [GrpcCode.Unauthenticated]: 401,
};

export function httpStatusOf(code: GrpcCode): ContentfulStatusCode {
  return HTTP_STATUS[code] ?? 500;
}

export interface ErrorBody {
  code: number;
  message: string;
  details: { '@type': typeof ERROR_DETAIL_TYPE; id: string; message: string; requestId?: string }[];
}

export function errorBody(error: DomainError, requestId?: string): ErrorBody {
  return {
    code: error.code,
    message: `${error.message} (${error.id})`,
    details: [{ '@type': ERROR_DETAIL_TYPE, id: error.id, message: error.message, ...(requestId ? { requestId } : {}) }],
  };
}

/** The error's answer with `status` (the code's by default), typed with it: a handler may return it for a status its operation documents. */
export function respondError<S extends ContentfulStatusCode = ContentfulStatusCode>(c: Context<AppEnv>, error: DomainError, status: S = httpStatusOf(error.code) as S) {
  if (error.code === GrpcCode.Unauthenticated) c.header('WWW-Authenticate', `Bearer error="invalid_token"`);
  if (error instanceof RateLimited) c.header('Retry-After', String(error.retryAfterSeconds));
  return c.json(errorBody(error, c.get('requestId')), status);
}

/** `['orgs', 0, 'name']` → `orgs[0].name`; the empty path names the input (`body`, `param`). */
function fieldName(path: readonly PropertyKey[], where: string): string {
  return formatPath(path) || (where === 'json' ? 'body' : where);
}

/** A body over the limit → 413 (code 8) whose message says the limit. */
export function bodyTooLarge(maxBytes: number): DomainError {
  return new DomainError(GrpcCode.ResourceExhausted, 'API-B0dy5', `request body too large (limit ${maxBytes} bytes)`);
}

/**
 * A zod failure → 400 naming the field, e.g. `invalid title: …` or `invalid orgs[0].name: …`.
 * `input` is what was sent (zod does not keep it in its issues): a value of the wrong type is
 * then told apart from a missing one.
 */
export function validationError(error: ZodError, where: string, input?: unknown): DomainError {
  const issue = firstToTell(error.issues);
  // A pattern's own wording is the spec's (`x-pattern-message`); zod would print the expression.
  const words = (issue.code === 'invalid_format' && issue.format === 'regex' && PATTERN_MESSAGES[issue.pattern ?? '']) || describeZodIssue(issue, input);
  return new DomainError(GrpcCode.InvalidArgument, 'API-V4l1d', `invalid ${fieldName(issue.path, where)}: ${words}`);
}

/**
 * The issue the message tells: the first one's field, and of that field's issues the most useful.
 * zod checks a string's format (`format: uri`) before its length and pattern and reports each
 * failure; an empty or over-long value is told its length, a value with a pattern of its own
 * wording (`x-pattern-message`) that wording, before "must be a URL".
 */
function firstToTell(issues: readonly ZodIssue[]): ZodIssue {
  const field = issues[0].path.join('\u0000');
  const same = issues.filter((issue) => issue.path.join('\u0000') === field);
  const rank = (issue: ZodIssue) =>
    issue.code === 'too_small' || issue.code === 'too_big' ? 0 : issue.code === 'invalid_format' && issue.format === 'regex' && PATTERN_MESSAGES[issue.pattern ?? ''] ? 1 : 2;
  return same.reduce((best, issue) => (rank(issue) < rank(best) ? issue : best));
}

/** Valid input holding text no store can keep (domain/unstorable-text.ts) → 400 naming the field. */
export function unstorableTextError(path: readonly PropertyKey[], where: string): DomainError {
  return new DomainError(GrpcCode.InvalidArgument, 'API-V4l1d', `invalid ${fieldName(path, where)}: ${UNSTORABLE_TEXT_MESSAGE}`);
}

/** Anything thrown that is not a DomainError: known HTTP failures keep their status, the rest is 500. */
export function toDomainError(error: unknown): { error: DomainError; status?: ContentfulStatusCode } {
  if (error instanceof DomainError) return { error };
  if (error instanceof UniqueViolation) {
    return { error: new DomainError(GrpcCode.AlreadyExists, 'V3-DKcYh', 'Resource already exists') };
  }
  if (error instanceof HTTPException) {
    if (error.status === 413) {
      return { error: new DomainError(GrpcCode.ResourceExhausted, 'API-B0dy5', 'request body too large'), status: 413 };
    }
    if (error.status === 415) {
      return { error: new DomainError(GrpcCode.InvalidArgument, 'API-C0nT1', 'the request body must be sent with Content-Type: application/json') };
    }
    if (error.status === 400) {
      return { error: new DomainError(GrpcCode.InvalidArgument, 'API-J50n1', `malformed request: ${error.message}`) };
    }
  }
  if (error instanceof SyntaxError) {
    return { error: new DomainError(GrpcCode.InvalidArgument, 'API-J50n1', `malformed JSON: ${error.message}`) };
  }
  return { error: new DomainError(GrpcCode.Internal, 'API-1nt3r', 'internal error') };
}
