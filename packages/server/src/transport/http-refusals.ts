/**
 * What the server answers, over either HTTP version, when it refuses a request before the app
 * sees it: the status and the API's error body (ZITADEL's `{code, message, details}`).
 */
import { DomainError, GrpcCode } from '../domain/errors.js';

/**
 * The most a request's line and headers may take: node's own limit on HTTP/1.1 (the URL counts);
 * on HTTP/2 the header list's size as RFC 9113 counts it (names, values and 32 per field,
 * pseudo-headers such as `:path` included). Beyond it, 431.
 */
export const MAX_HEADER_BYTES = 16 * 1024;

export type Refusal = 'headers-too-large' | 'timeout' | 'malformed';

export function refusal(kind: Refusal): { status: number; reason: string; failure: DomainError } {
  switch (kind) {
    case 'headers-too-large':
      return {
        status: 431,
        reason: 'Request Header Fields Too Large',
        failure: new DomainError(GrpcCode.InvalidArgument, 'API-H3ad5', `the request line and headers are too large (limit ${MAX_HEADER_BYTES} bytes)`),
      };
    case 'timeout':
      return { status: 408, reason: 'Request Timeout', failure: new DomainError(GrpcCode.DeadlineExceeded, 'API-T1me0', 'the request was not received in time') };
    case 'malformed':
      return { status: 400, reason: 'Bad Request', failure: new DomainError(GrpcCode.InvalidArgument, 'API-H77p0', 'malformed HTTP request') };
  }
}
