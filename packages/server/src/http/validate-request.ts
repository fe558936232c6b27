/**
 * A route's whole input validated by one middleware: path parameters, query, headers and the JSON
 * body, each against the zod schema its route config (http/operation.ts) names, in that order, with the app's hook.
 *
 * Why not @hono/zod-openapi's own: it adds one middleware per input (param, header, a media-type
 * gate, json), each an async function with its own `safeParseAsync`, and its header validator
 * builds an object of every request header (which makes @hono/node-server materialise a web
 * Headers object) to keep the few a route declares. Replacing them (with two smaller changes)
 * took the text write's instructions per request down 6.5 % on the admin route and 18.6 % on the
 * management one, which declares a header (BENCHMARKS.md, round 12). The answers are the same:
 * the same schemas, the same hook, a body of the wrong media type 415, malformed JSON a 400
 * HTTPException, a body that is not required and not JSON validated as `{}` (tests pin each).
 *
 * What it supports is what routes use: params, query, headers and JSON bodies. A route declaring
 * cookies or a form body is refused when it is registered, not silently left unvalidated.
 */
import { type RouteConfig, z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';

type Target = 'param' | 'query' | 'header' | 'json';
type Schema = z.ZodType;

/** What the hook gets, as @hono/zod-validator passes it: the input as sent, zod's result, the input's name. */
export type ValidationResult = ({ success: true; data: unknown } | { success: false; error: z.ZodError }) & { data: unknown; target: Target };
/** The app's hook: a Response (answer it) or nothing (go on; a failure still answers 400). */
export type ValidationHook = (result: ValidationResult, c: Context) => Response | void | Promise<Response | void>;

interface Input {
  target: Exclude<Target, 'json'>;
  schema: Schema;
  read: (c: Context) => unknown;
}

interface JsonBody {
  schema: Schema;
  required: boolean;
}

/** The middleware validating `route`'s input, or undefined when it declares none. */
export function requestValidator(route: RouteConfig, hook: ValidationHook, options: { body?: boolean } = {}): MiddlewareHandler | undefined {
  const request = route.request;
  if (!request) return undefined;
  if (request.cookies) throw new Error(`${route.method} ${route.path}: cookie parameters are not validated (http/validate-request.ts)`);
  // The order of @hono/zod-openapi's validators, so a request wrong in two places names the same one.
  const inputs: Input[] = [];
  if (request.query) inputs.push({ target: 'query', schema: request.query as Schema, read: readQuery });
  if (request.params) inputs.push({ target: 'param', schema: request.params as Schema, read: (c) => c.req.param() });
  if (request.headers) inputs.push({ target: 'header', schema: request.headers as Schema, read: headerReader(request.headers as Schema) });
  // A streamed body (operation.ts `streamedBody`) is read and checked by its handler.
  const body = options.body === false ? undefined : jsonBody(route);

  // Awaits only what is a promise: each await of a plain value would cost a turn of the microtask queue.
  return async (c, next) => {
    for (const input of inputs) {
      let answer = check(c, input.target, input.schema, input.read(c), hook);
      if (answer instanceof Promise) answer = await answer;
      if (answer) return answer;
    }
    if (body) {
      const value = await readJsonBody(c, body);
      if (value !== undefined) {
        let answer = check(c, 'json', body.schema, value, hook);
        if (answer instanceof Promise) answer = await answer;
        if (answer) return answer;
      }
    }
    return next();
  };
}

function check(c: Context, target: Target, schema: Schema, value: unknown, hook: ValidationHook): Response | Promise<Response | undefined> | undefined {
  const result = parse(schema, value);
  return result instanceof Promise ? result.then((r) => settle(c, target, r, value, hook)) : settle(c, target, result, value, hook);
}

/** A failed check's answer (the hook's, else 400 with zod's result), or undefined with the data stored for `c.req.valid`. */
function settle(c: Context, target: Target, result: z.ZodSafeParseResult<unknown>, value: unknown, hook: ValidationHook): Response | Promise<Response | undefined> | undefined {
  // Built field by field rather than spread from zod's result: two fixed shapes for V8.
  const hooked = hook(result.success ? { success: true, data: result.data, target } : { success: false, error: result.error, data: value, target }, c);
  // No closure made per call: under tsx (the bench, `npm run dev`) a named one costs a defineProperty each time.
  return hooked instanceof Promise ? hooked.then(finish.bind(undefined, c, target, result)) : finish(c, target, result, hooked);
}

function finish(c: Context, target: Target, result: z.ZodSafeParseResult<unknown>, hooked: Response | void): Response | undefined {
  if (hooked instanceof Response) return hooked;
  if (!result.success) return c.json(result, 400);
  c.req.addValidatedData(target, result.data as object);
  return undefined;
}

/**
 * zod's synchronous parse; a schema with asynchronous refinements (none today) throws zod's async
 * error there and is parsed asynchronously instead. Synchronous parsing allocates no promise per
 * object and field.
 */
function parse(schema: Schema, value: unknown): z.ZodSafeParseResult<unknown> | Promise<z.ZodSafeParseResult<unknown>> {
  try {
    return schema.safeParse(value);
  } catch (error) {
    if (error instanceof z.core.$ZodAsyncError) return schema.safeParseAsync(value);
    throw error;
  }
}

function readQuery(c: Context): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(c.req.queries()).map(([key, values]) => [key, values.length === 1 ? values[0] : values]));
}

/**
 * Only the headers the schema names, each looked up by its lower-case name (HTTP header names are
 * case-insensitive; @hono/zod-validator maps them the same way). The schema is not strict, so the
 * others would be dropped by the parse anyway.
 */
function headerReader(schema: Schema): (c: Context) => Record<string, string> {
  const shape = schema instanceof z.ZodObject ? (schema.shape as Record<string, unknown>) : undefined;
  if (!shape) throw new Error('request headers must be declared as a z.object');
  const names = Object.keys(shape).map((key) => [key, key.toLowerCase()] as const);
  return (c) => {
    const headers: Record<string, string> = {};
    for (const [key, lower] of names) {
      const value = c.req.header(lower);
      if (value !== undefined) headers[key] = value;
    }
    return headers;
  };
}

const JSON_MEDIA_TYPE = /^application\/([a-z-.]+\+)?json/i;
/** A JSON content type as a request may send it (parameters such as charset allowed). */
const JSON_REQUEST = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

function jsonBody(route: RouteConfig): JsonBody | undefined {
  const content = route.request?.body?.content;
  if (!content) return undefined;
  const mediaTypes = Object.keys(content);
  const json = mediaTypes.filter((type) => JSON_MEDIA_TYPE.test(type));
  const other = mediaTypes.filter((type) => !JSON_MEDIA_TYPE.test(type));
  if (other.length > 0 || json.length !== 1) throw new Error(`${route.method} ${route.path}: only one JSON body media type is validated (http/validate-request.ts), got ${mediaTypes.join(', ')}`);
  const media = content[json[0]];
  const schema = media && 'schema' in media ? media.schema : undefined;
  if (!(schema instanceof z.ZodType)) throw new Error(`${route.method} ${route.path}: the JSON body needs a zod schema`);
  return { schema, required: route.request?.body?.required === true };
}

/**
 * The JSON body to validate, or undefined when there is none to validate (an optional body not
 * sent as JSON, which the route then reads as `{}`). A body sent with another media type is 415;
 * one sent without any content type is 415 too when it is not empty, and validated as `{}` when
 * it is. Malformed JSON is a 400 HTTPException (app.ts' error handler words it).
 */
async function readJsonBody(c: Context, body: JsonBody): Promise<unknown> {
  const contentType = c.req.header('content-type');
  if (contentType) {
    if (!JSON_REQUEST.test(contentType)) throw new HTTPException(415, { message: 'Unsupported Media Type' });
  } else if ((await c.req.arrayBuffer()).byteLength > 0) {
    throw new HTTPException(415, { message: 'Unsupported Media Type' });
  }
  if (!body.required && !contentType) {
    c.req.addValidatedData('json', {});
    return undefined;
  }
  if (!contentType) return {};
  try {
    return await c.req.json();
  } catch {
    throw new HTTPException(400, { message: 'Malformed JSON in request body' });
  }
}
