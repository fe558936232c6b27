/**
 * The hand-written spec, bundled exactly as the server serves it, and what the contract
 * tests need from it: operations by method and path, and Ajv validators for responses.
 */

import { loadSpec, SPEC_ENTRY } from '@identity-service/server/src/http/spec.js';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export { SPEC_ENTRY };
export const spec = loadSpec() as any;

export const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export interface SpecOperation {
  operationId: string;
  method: string;
  path: string;
  pattern: RegExp;
  operation: any;
  /** Explicitly documented statuses (not `default`). */
  statuses: string[];
}

export const operations: SpecOperation[] = Object.entries(spec.paths as Record<string, any>).flatMap(([path, item]) =>
  METHODS.filter((m) => item[m]).map((method) => ({
    operationId: item[method].operationId,
    method,
    path,
    pattern: new RegExp(
      `^${path
        .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
        .replace(/\\?\{[^}]+\\?\}/g, '[^/]+')
        .replace(/\{[^}]+\}/g, '[^/]+')}$`,
    ),
    operation: item[method],
    statuses: Object.keys(item[method].responses).filter((s) => s !== 'default'),
  })),
);

/**
 * Operations answered by the authorization server or the login pages (`x-served-by`), not by the
 * API's OpenAPI routes: the drift test skips them and oauth.test.ts checks them on a real server.
 */
export const servedOutsideApi = (operation: any): boolean => typeof operation?.['x-served-by'] === 'string';

export function findOperation(method: string, pathname: string): SpecOperation | undefined {
  return operations.find((op) => op.method === method.toLowerCase() && op.pattern.test(pathname));
}

/** Follows a local `$ref` (`#/components/...`) in the bundled spec. */
export function deref(node: any): any {
  if (node && typeof node === 'object' && typeof node.$ref === 'string') {
    return deref(
      node.$ref
        .slice(2)
        .split('/')
        .reduce((n: any, p: string) => n[p], spec),
    );
  }
  return node;
}

const ajv = new (Ajv2020 as any)({ strict: false, allErrors: true });
(addFormats as any)(ajv);

const validators = new Map<string, (data: unknown) => boolean>();

/** A validator for a response schema; `$ref`s resolve against the spec's components. */
export function validatorFor(key: string, schema: any) {
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile({ ...schema, components: spec.components }) as (data: unknown) => boolean;
    validators.set(key, validate);
  }
  return validate as ((data: unknown) => boolean) & { errors?: unknown };
}
