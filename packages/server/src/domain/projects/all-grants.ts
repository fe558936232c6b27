/**
 * ListAllProjectGrants (ZITADEL's `POST /management/v1/projectgrants/_search`, permission
 * `project.grant.read`): the grants of every project of the context organisation, filtered by
 * ZITADEL's AllProjectGrantQuery (project name, granted role key, project id, granted organisation).
 * An organisation grants its projects to a handful of others, so the grants are read whole and
 * filtered and paged here, one rule for both stores (roles are a JSON list in the row).
 */
import type { Store } from '../../store/store.js';
import { type RequestContext, requirePermission } from '../context.js';
import { invalidArgument } from '../errors.js';
import { type ListDetails, type ListQueryInput, listDetails, type TextQueryMethod, textMatch, toPage } from '../list.js';
import { type ProjectGrantView, toView } from './grants.js';

export type AllProjectGrantQuery =
  | { projectNameQuery: { name: string; method?: TextQueryMethod } }
  | { roleKeyQuery: { roleKey: string; method?: TextQueryMethod } }
  | { projectIdQuery: { projectId: string } }
  | { grantedOrgIdQuery: { grantedOrgId: string } };

/** The text query as a predicate (the repositories' TextMatch, applied in memory). */
function matches(value: string, query: string, method: TextQueryMethod | undefined): boolean {
  const m = textMatch(query, method);
  const [v, q] = m.ignoreCase ? [value.toLowerCase(), query.toLowerCase()] : [value, query];
  return m.op === 'equals' ? v === q : m.op === 'startsWith' ? v.startsWith(q) : m.op === 'endsWith' ? v.endsWith(q) : v.includes(q);
}

export async function listAllProjectGrants(
  store: Store,
  ctx: RequestContext,
  input: { query?: ListQueryInput; queries?: Partial<Record<string, unknown>>[] },
): Promise<{ details: ListDetails; result: ProjectGrantView[] }> {
  requirePermission(ctx, 'project.grant.read');
  const allowed = ctx.permissions.projectsWith('project.grant.read');
  const grants = (await store.read.projectGrants.ownedBy(ctx.orgId)).filter((g) => !allowed || allowed.includes(g.projectId));
  const projects = new Map((await store.read.projects.byIds([...new Set(grants.map((g) => g.projectId))])).map((p) => [p.id, p]));
  const queries = (input.queries ?? []) as AllProjectGrantQuery[];
  // The spec says "exactly one field"; a query naming none would match nothing meaningful.
  queries.forEach((q, i) => {
    if (!['projectNameQuery', 'roleKeyQuery', 'projectIdQuery', 'grantedOrgIdQuery'].some((k) => k in q))
      throw invalidArgument('PROJECT-qu3ry', `invalid queries[${i}]: exactly one of projectNameQuery, roleKeyQuery, projectIdQuery, grantedOrgIdQuery`);
  });
  const kept = grants.filter((g) =>
    queries.every((q) => {
      if ('projectNameQuery' in q) return matches(projects.get(g.projectId)?.name ?? '', q.projectNameQuery.name, q.projectNameQuery.method);
      if ('roleKeyQuery' in q) return g.roleKeys.some((k) => matches(k, q.roleKeyQuery.roleKey, q.roleKeyQuery.method));
      if ('projectIdQuery' in q) return g.projectId === q.projectIdQuery.projectId;
      return g.grantedOrgId === q.grantedOrgIdQuery.grantedOrgId;
    }),
  );
  const { offset, limit, asc } = toPage(input.query);
  const ordered = asc ? kept : [...kept].reverse();
  const page = ordered.slice(offset, offset + limit);
  return { details: listDetails(kept.length), result: await Promise.all(page.map((g) => toView(store.read, g))) };
}
