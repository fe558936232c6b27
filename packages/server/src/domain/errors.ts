/**
 * The one error type that crosses the layers: a gRPC status code, a ZITADEL-style id
 * (`COMMAND-1My0t`) and an English message. http/errors.ts turns it into the response body.
 */
export const GrpcCode = {
  Canceled: 1,
  Unknown: 2,
  InvalidArgument: 3,
  DeadlineExceeded: 4,
  NotFound: 5,
  AlreadyExists: 6,
  PermissionDenied: 7,
  ResourceExhausted: 8,
  FailedPrecondition: 9,
  Aborted: 10,
  OutOfRange: 11,
  Unimplemented: 12,
  Internal: 13,
  Unavailable: 14,
  DataLoss: 15,
  Unauthenticated: 16,
} as const;
export type GrpcCode = (typeof GrpcCode)[keyof typeof GrpcCode];

export class DomainError extends Error {
  constructor(
    readonly code: GrpcCode,
    readonly id: string,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** A caller over a rate limit: 429 (code 8) with `Retry-After` (http/errors.ts). */
export class RateLimited extends DomainError {
  constructor(
    id: string,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(GrpcCode.ResourceExhausted, id, message);
  }
}

export const invalidArgument = (id: string, message: string) => new DomainError(GrpcCode.InvalidArgument, id, message);
export const notFound = (id: string, message: string) => new DomainError(GrpcCode.NotFound, id, message);
export const alreadyExists = (id: string, message: string) => new DomainError(GrpcCode.AlreadyExists, id, message);
export const permissionDenied = (id: string, message: string) => new DomainError(GrpcCode.PermissionDenied, id, message);
export const failedPrecondition = (id: string, message: string) => new DomainError(GrpcCode.FailedPrecondition, id, message);
export const unavailable = (id: string, message: string) => new DomainError(GrpcCode.Unavailable, id, message);
export const unauthenticated = (id: string, message: string) => new DomainError(GrpcCode.Unauthenticated, id, message);

/**
 * A write lost a race on a unique key: the stores throw it (store/sqlite.ts, store/postgres-group-commit.ts, with
 * the constraint's name as `detail`); a command may turn it into its own error, and whatever reaches
 * the API answers 409 (http/errors.ts).
 */
export class UniqueViolation extends Error {
  constructor(readonly detail: string) {
    super(`unique violation: ${detail}`);
  }
}
