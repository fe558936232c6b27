/**
 * ZITADEL's RPCs against the hand-written spec (issue 28): the server offers an RPC exactly when its
 * `google.api.http` rule (ZITADEL's descriptors) names an operation of the spec, and the operation it
 * calls is that one. Derived here again from the spec document itself — not from the generated
 * table the server derives its list from — so a drift between the two, or a spec operation with a
 * ZITADEL twin that no RPC reaches, fails here.
 */
import { httpRuleOf, RPC_SERVICES, rpcTable } from '@identity-service/server/src/rpc/offered-rpcs.js';
import { describe, expect, it } from 'vitest';
import { deref, operations, type SpecOperation, servedOutsideApi, spec } from './support/spec.js';

/** The spec's operation a call to `template` (the RPC's REST path) reaches, literal paths first. */
function specOperationFor(method: string, template: string): SpecOperation | undefined {
  const wanted = template.split('/');
  const candidates = operations
    .filter((op) => op.method === method.toLowerCase() && !servedOutsideApi(op.operation))
    .filter((op) => {
      const segments = op.path.split('/');
      return (
        segments.length === wanted.length &&
        segments.every((segment, i) => {
          const rpcSegment = wanted[i];
          if (!segment.startsWith('{')) return segment === rpcSegment;
          if (rpcSegment.startsWith('{')) return true;
          // A literal of the RPC's path in a parameter's place: the parameter must take it.
          const name = segment.slice(1, -1);
          const parameter = [...(spec.paths[op.path].parameters ?? []), ...(op.operation.parameters ?? [])].map(deref).find((p: any) => p.in === 'path' && p.name === name);
          const schema = deref(parameter?.schema ?? {});
          return schema.enum ? schema.enum.includes(rpcSegment) : true;
        })
      );
    });
  const literals = (op: SpecOperation) => op.path.split('/').filter((s) => !s.startsWith('{')).length;
  return candidates.sort((a, b) => literals(b) - literals(a))[0];
}

describe("ZITADEL's RPCs ↔ the spec's operations", () => {
  const expected = new Map<string, string>();
  for (const { service, restPrefix } of RPC_SERVICES) {
    for (const method of service.methods) {
      const rule = httpRuleOf(method);
      if (!rule) continue;
      const operation = specOperationFor(rule.httpMethod, restPrefix + rule.path);
      if (operation) expected.set(`${service.typeName}/${method.name}`, operation.operationId);
    }
  }
  const offered = new Map(rpcTable().flatMap((entry) => (entry.twin ? [[entry.name, entry.twin.operationId] as const] : [])));

  it('every offered RPC calls the spec operation its REST rule names', () => {
    for (const [rpc, operationId] of offered) expect(expected.get(rpc), rpc).toBe(operationId);
  });

  it('every RPC whose REST rule names an operation of the spec is offered', () => {
    const missing = [...expected.keys()].filter((rpc) => !offered.has(rpc));
    expect(missing).toEqual([]);
    expect(offered.size).toBe(expected.size);
  });

  it('each offered operation is one of the spec, with the method the RPC calls', () => {
    for (const entry of rpcTable()) {
      if (!entry.twin) continue;
      const operation = operations.find((op) => op.operationId === entry.twin!.operationId);
      expect(operation, entry.name).toBeDefined();
      expect(operation!.method.toUpperCase()).toBe(entry.twin.httpMethod);
    }
  });
});
