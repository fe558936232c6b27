/**
 * JSON request bodies refuse fields their operation does not define, as ZITADEL's gateway does
 * (`unknown field "titel"`): a typo must not be silently dropped while the call answers 200.
 * createApp applies this to every route's JSON body schema at registration, so route schemas stay
 * plain `z.object`s. Objects that deliberately keep unknown keys (a `catchall`, records: e.g. the
 * import document, whose unmodelled ZITADEL fields the domain reports as IMPORT-uNsup) are left as
 * they are.
 */
import { type RouteConfig, z } from '@hono/zod-openapi';

type AnySchema = z.ZodType;

/** `schema` with every plain object in it (through optional, nullable, array, union) made strict. */
export function strictSchema(schema: AnySchema): AnySchema {
  if (schema instanceof z.ZodObject) {
    const def = schema._zod.def;
    const shape = Object.fromEntries(Object.entries(def.shape).map(([key, value]) => [key, strictSchema(value as AnySchema)]));
    // A catchall means "unknown keys are welcome here" (strict mode is itself a `never` catchall).
    // clone keeps the object's own checks, where extend would refuse an object with refinements.
    return schema.clone({ ...def, shape, catchall: def.catchall ?? z.never() });
  }
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) {
    const inner = schema._zod.def.innerType as AnySchema;
    const strict = strictSchema(inner);
    if (strict === inner) return schema;
    return schema instanceof z.ZodOptional ? strict.optional() : strict.nullable();
  }
  if (schema instanceof z.ZodArray) {
    const element = schema._zod.def.element as AnySchema;
    const strict = strictSchema(element);
    return strict === element ? schema : schema.clone({ ...schema._zod.def, element: strict });
  }
  if (schema instanceof z.ZodUnion) {
    const options = schema._zod.def.options as AnySchema[];
    const strict = options.map(strictSchema);
    return strict.every((s, i) => s === options[i]) ? schema : schema.clone({ ...schema._zod.def, options: strict });
  }
  return schema;
}

/** The route config with its JSON body schemas made strict (other content types untouched). */
export function withStrictJsonBody<R extends RouteConfig>(route: R): R {
  const body = route.request?.body;
  if (!body?.content) return route;
  const content = Object.fromEntries(
    Object.entries(body.content).map(([type, media]) => [
      type,
      media && 'schema' in media && /json/i.test(type) && media.schema instanceof z.ZodType ? { ...media, schema: strictSchema(media.schema) } : media,
    ]),
  );
  return { ...route, request: { ...route.request, body: { ...body, content } } };
}
