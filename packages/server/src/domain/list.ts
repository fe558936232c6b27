/**
 * List calls (ZITADEL's ListQuery / ListDetails / TextQueryMethod): paging defaults and the
 * text-match methods of search queries, mapped to what repositories understand.
 */
import type { TextMatch } from '../store/repositories/search.js';

export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;

export interface ListQueryInput {
  offset?: string | number;
  limit?: number;
  asc?: boolean;
}

export interface Page {
  offset: number;
  limit: number;
  asc: boolean;
}

/** The request's paging; limit 0 or omitted means the default, as in ZITADEL. */
export function toPage(query: ListQueryInput | undefined): Page {
  const offset = Number(query?.offset ?? 0);
  const limit = query?.limit ? Math.min(query.limit, MAX_LIST_LIMIT) : DEFAULT_LIST_LIMIT;
  return { offset: Number.isSafeInteger(offset) ? offset : 0, limit, asc: query?.asc ?? true };
}

export interface ListDetails {
  totalResult: string;
  viewTimestamp: string;
}

export function listDetails(total: number, at: Date = new Date()): ListDetails {
  return { totalResult: String(total), viewTimestamp: at.toISOString() };
}

export const TEXT_QUERY_METHODS = [
  'TEXT_QUERY_METHOD_EQUALS',
  'TEXT_QUERY_METHOD_EQUALS_IGNORE_CASE',
  'TEXT_QUERY_METHOD_STARTS_WITH',
  'TEXT_QUERY_METHOD_STARTS_WITH_IGNORE_CASE',
  'TEXT_QUERY_METHOD_CONTAINS',
  'TEXT_QUERY_METHOD_CONTAINS_IGNORE_CASE',
  'TEXT_QUERY_METHOD_ENDS_WITH',
  'TEXT_QUERY_METHOD_ENDS_WITH_IGNORE_CASE',
] as const;
export type TextQueryMethod = (typeof TEXT_QUERY_METHODS)[number];

/** A ZITADEL text query → the repositories' match (method omitted = EQUALS). */
export function textMatch(value: string, method: TextQueryMethod | undefined): TextMatch {
  const m = method ?? 'TEXT_QUERY_METHOD_EQUALS';
  const ignoreCase = m.endsWith('_IGNORE_CASE');
  const kind = m.replace('TEXT_QUERY_METHOD_', '').replace('_IGNORE_CASE', '');
  const op = ({ EQUALS: 'equals', STARTS_WITH: 'startsWith', CONTAINS: 'contains', ENDS_WITH: 'endsWith' } as const)[kind as 'EQUALS' | 'STARTS_WITH' | 'CONTAINS' | 'ENDS_WITH'];
  return { value, op, ignoreCase };
}
