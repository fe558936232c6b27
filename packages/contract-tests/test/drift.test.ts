/**
 * The server's route definitions against the hand-written spec: the same operations (method,
 * path, operationId), the same parameters, the same request bodies (required-ness, content
 * types, top-level properties) and the same response status codes and content types.
 */
import { createApp } from '@identity-service/server/src/app.js';
import { describe, expect, it } from 'vitest';
import { deref, METHODS, servedOutsideApi, spec } from './support/spec.js';

const fakeStore = {} as never; // route definitions only: no request is served here
const emitted = createApp({ store: fakeStore, instanceId: 'x', spec: {} }).getOpenAPI31Document({
  openapi: '3.1.0',
  info: { title: 'emitted', version: '0' },
}) as any;

interface OperationShape {
  operationId: string;
  parameters: string[];
  body: { required: boolean; contentTypes: string[]; properties: string[]; requiredProperties: string[] } | null;
  responses: Record<string, string[]>;
}

function resolveSchema(doc: any, schema: any): any {
  if (schema?.$ref)
    return resolveSchema(
      doc,
      schema.$ref
        .slice(2)
        .split('/')
        .reduce((n: any, p: string) => n[p], doc),
    );
  return schema ?? {};
}

function shape(doc: any, path: string, method: string, resolve: (n: any) => any): OperationShape {
  const item = doc.paths[path];
  const op = item[method];
  const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve);
  const body = op.requestBody ? resolve(op.requestBody) : null;
  const bodySchema = body ? resolveSchema(doc, Object.values<any>(body.content)[0]?.schema) : null;
  return {
    operationId: op.operationId,
    parameters: params.map((p: any) => `${p.in}:${p.name}:${p.required ? 'required' : 'optional'}`).sort(),
    body: body
      ? {
          required: Boolean(body.required),
          contentTypes: Object.keys(body.content).sort(),
          properties: Object.keys(bodySchema.properties ?? {}).sort(),
          requiredProperties: [...(bodySchema.required ?? [])].sort(),
        }
      : null,
    responses: Object.fromEntries(
      Object.entries<any>(op.responses)
        .filter(([status]) => status !== 'default')
        .map(([status, r]) => [status, Object.keys(resolve(r).content ?? {}).sort()]),
    ),
  };
}

// Operations served by oidc-provider or the login pages are not OpenAPI routes of the app;
// oauth.test.ts checks them against the real server instead.
const list = (doc: any) =>
  Object.entries<any>(doc.paths)
    .flatMap(([path, item]) => METHODS.filter((m) => item[m] && !servedOutsideApi(item[m])).map((m) => `${m.toUpperCase()} ${path}`))
    .sort();

describe('spec ↔ server routes', () => {
  it('cover exactly the same operations', () => {
    expect(list(emitted)).toEqual(list(spec));
  });

  it("every operation that reads a body documents the body limit's 413", () => {
    const undocumented = list(spec).filter((key) => {
      const [method, path] = key.split(' ');
      const op = spec.paths[path][method.toLowerCase()];
      return op.requestBody && !op.responses['413'];
    });
    expect(undocumented).toEqual([]);
  });

  for (const key of list(spec)) {
    const [method, path] = key.split(' ');
    it(`${key} has the same parameters, body and responses`, () => {
      expect(emitted.paths[path]?.[method.toLowerCase()], `${key} is not served`).toBeDefined();
      const server = shape(emitted, path, method.toLowerCase(), (n) => resolveSchema(emitted, n));
      const handWritten = shape(spec, path, method.toLowerCase(), deref);
      expect(server).toEqual(handWritten);
    });
  }
});
