/**
 * Every response the contract tests see goes through `recordingFetch`: its status must be
 * documented for the operation, its content type must be a documented one, and its body must
 * validate against the hand-written spec. The ledger remembers which operation × status pairs
 * were seen, so a documented pair that no test exercises fails the run.
 */
import { deref, findOperation, operations, type SpecOperation, validatorFor } from './spec.js';

export const exercised = new Set<string>();
export const violations: string[] = [];

export function recordingFetch(fetch: (req: Request) => Response | Promise<Response>) {
  return async (request: Request): Promise<Response> => {
    const response = await fetch(request);
    const url = new URL(request.url);
    const op = findOperation(request.method, url.pathname);
    if (!op) return response; // not an operation (e.g. a deliberately unknown route)
    const status = String(response.status);
    const where = `${op.operationId} ${request.method} ${url.pathname} → ${status}`;
    const documented = op.operation.responses[status];
    if (!documented) {
      violations.push(`${where}: status not documented`);
      return response;
    }
    exercised.add(`${op.operationId} ${status}`);
    const definition = deref(documented);
    const contentType = (response.headers.get('content-type') ?? '').split(';')[0].trim();
    const content = definition.content ?? {};
    if (Object.keys(content).length === 0) return response;
    if (!content[contentType]) {
      violations.push(`${where}: content type "${contentType}" not documented (${Object.keys(content).join(', ')})`);
      return response;
    }
    if (contentType === 'application/json' || contentType.endsWith('+json')) {
      const body = await response.clone().json();
      const validate = validatorFor(`${op.operationId} ${status}`, content[contentType].schema);
      if (!validate(body)) violations.push(`${where}: body does not match the spec: ${JSON.stringify(validate.errors)} body=${JSON.stringify(body).slice(0, 500)}`);
    }
    return response;
  };
}

/** Documented operation × status pairs that no test produced (of the operations `which` selects). */
export function unexercised(which: (op: SpecOperation) => boolean = () => true): string[] {
  return operations
    .filter(which)
    .flatMap((op) => op.statuses.map((s) => `${op.operationId} ${s}`))
    .filter((k) => !exercised.has(k));
}
