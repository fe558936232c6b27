/**
 * The one way to declare an API route: by its operationId in the spec.
 *
 * Everything about the route but its handler comes from openapi/ through the generated table
 * (generated/operations.gen.ts, scripts/generate-schemas.ts): method, path, the zod schemas its
 * path parameters, query, headers and body are validated with, the statuses it documents, and
 * whether it needs a token. A secured operation gets the authentication middleware here, and a
 * deprecated one its Deprecation and Link headers, so no routes file decides that for itself and
 * none can forget it.
 *
 *   const route = routesOf(app, deps);
 *   route('AddUserGrant', async (c) => c.json(await addUserGrant(…, c.req.valid('json')), 200));
 *
 * The handler is typed from the same schemas: `c.req.valid('json')` is the body as the spec
 * describes it, and the 200 answer must have the spec's shape.
 */
import type { OpenAPIHono, RouteConfig, RouteHandler } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { ZodType } from 'zod';
import type { RouteDeps } from './deps.js';
import type { AppEnv } from './env.js';
import { OPERATIONS, type OperationId } from './generated/operations.gen.js';
import { zErrorBody } from './generated/schemas.gen.js';
import { idpDeprecation } from './middleware/deprecation.js';

/** An entry of the generated table, as the code that reads any entry sees it. */
interface GeneratedOperation {
  method: RouteConfig['method'];
  path: string;
  tags: readonly string[];
  security: readonly Record<string, readonly string[]>[];
  deprecated?: true;
  body?: { schema: ZodType; required: boolean; mediaType: string };
  params?: ZodType;
  query?: ZodType;
  headers?: ZodType;
  response?: ZodType;
  responses: Record<string, { description: string; mediaTypes: readonly string[]; schema?: ZodType }>;
}

type Operation<Id extends OperationId> = (typeof OPERATIONS)[Id];

type Content<MediaTypes, Schema> = MediaTypes extends readonly string[] ? { [M in MediaTypes[number]]: { schema: Schema } } : never;

// `[O] extends [...]`: not distributed over a union of operations (the four parts would multiply).
type RequestOf<O> = ([O] extends [{ body: { schema: infer B; mediaType: infer M extends string } }] ? { body: { required: boolean; content: { [K in M]: { schema: B } } } } : {}) &
  ([O] extends [{ params: infer P }] ? { params: P } : {}) &
  ([O] extends [{ query: infer Q }] ? { query: Q } : {}) &
  ([O] extends [{ headers: infer H }] ? { headers: H } : {});

/** The documented answers, each with its schema in the spec: 2xx the operation's response, the others theirs (mostly the error body). */
type ResponsesOf<O> = [O] extends [{ responses: infer R }]
  ? {
      [S in Exclude<keyof R, 'default'>]: R[S] extends { mediaTypes: infer MediaTypes; description: string }
        ? MediaTypes extends readonly []
          ? { description: string }
          : {
              description: string;
              content: Content<MediaTypes, S extends 200 | 201 ? (O extends { response: infer Out } ? Out : typeof zErrorBody) : R[S] extends { schema: infer Own } ? Own : typeof zErrorBody>;
            }
        : never;
    }
  : never;

/** The route config of an operation as @hono/zod-openapi takes it, typed from the generated table. */
export type RouteOf<Id extends OperationId> = {
  operationId: Id;
  method: Operation<Id>['method'];
  path: Operation<Id>['path'];
  request: RequestOf<Operation<Id>>;
  responses: ResponsesOf<Operation<Id>>;
};

/** What a routes file's handler for `Id` is. */
// The conditional defers the check that RouteOf<Id> is a RouteConfig to each concrete Id (checking
// it for the union of all operations is more than the compiler represents).
export type OperationHandler<Id extends OperationId> = RouteOf<Id> extends infer R extends RouteConfig ? RouteHandler<R, AppEnv> : never;

/** The operation's route config, built from the generated table. */
export function routeConfig(id: OperationId): RouteConfig {
  const op = OPERATIONS[id] as unknown as GeneratedOperation;
  const request: Record<string, unknown> = {};
  if (op.body) request.body = { required: op.body.required, content: { [op.body.mediaType]: { schema: op.body.schema } } };
  if (op.params) request.params = op.params;
  if (op.query) request.query = op.query;
  if (op.headers) request.headers = op.headers;
  const responses = Object.fromEntries(
    Object.entries(op.responses)
      .filter(([status]) => status !== 'default')
      .map(([status, { description, mediaTypes, schema: own }]) => {
        const schema = (/^2/.test(status) && op.response) || own || zErrorBody;
        return [status, mediaTypes.length === 0 ? { description } : { description, content: Object.fromEntries(mediaTypes.map((type) => [type, { schema }])) }];
      }),
  );
  return {
    operationId: id,
    method: op.method,
    path: op.path,
    tags: [...op.tags],
    security: op.security.map((s) => ({ ...s })),
    ...(op.deprecated ? { deprecated: true } : {}),
    request,
    responses,
  } as RouteConfig;
}

/** Whether the spec asks for a token on the operation. */
export function isSecured(id: OperationId): boolean {
  return OPERATIONS[id].security.length > 0;
}

export interface RouteOptions {
  /** Middleware run before authentication (e.g. headers every answer carries, a refusal included). */
  beforeAuth?: MiddlewareHandler<AppEnv>[];
  /** Middleware run after authentication and before the input is validated (e.g. a concurrency gate). */
  middleware?: MiddlewareHandler<AppEnv>[];
  /**
   * The handler reads the body itself, as a stream (`c.req.raw.body`), and validates it later (an
   * import job's request, spooled to disk): the spec's body schema is documented but not applied.
   */
  streamedBody?: boolean;
}

/**
 * The headers of a deprecated operation (RFC 9745), first of all so that refusals carry them too.
 * Only ZITADEL's v1 identity-provider operations are deprecated; another one must say what
 * replaces it before it can be served.
 */
function deprecationOf(id: OperationId): MiddlewareHandler<AppEnv>[] {
  const op = OPERATIONS[id] as unknown as GeneratedOperation;
  if (!op.deprecated) return [];
  if (!op.tags.includes('Identity providers')) throw new Error(`${id} is deprecated in the spec: add its notice to http/operation.ts`);
  return [idpDeprecation(id)];
}

/** `route(operationId, handler)` for a routes file: the spec's operation, its token check when secured. */
export function routesOf(app: OpenAPIHono<AppEnv>, { auth }: Pick<RouteDeps, 'auth'>) {
  return function route<Id extends OperationId>(id: Id, handler: OperationHandler<Id>, options: RouteOptions = {}) {
    const middleware = [...deprecationOf(id), ...(options.beforeAuth ?? []), ...(isSecured(id) ? [auth] : []), ...(options.middleware ?? [])];
    app.openapi({ ...routeConfig(id), middleware, ...(options.streamedBody ? { streamedBody: true } : {}) }, handler as never);
  };
}
