/**
 * Which of ZITADEL's v1 RPCs this service offers, derived at start-up: each RPC's `google.api.http`
 * rule (ZITADEL's descriptors, @zitadel/proto) plus its service's REST prefix names a REST
 * operation; the RPC is offered when that operation is one of the spec's (the generated table).
 * Nothing here is listed by hand, so an operation added to the spec with a ZITADEL twin is offered
 * over gRPC, gRPC-web and Connect without another line.
 */
import { type DescMethod, type DescService, getOption, hasOption } from '@bufbuild/protobuf';
import { http } from '@zitadel/proto/google/api/annotations_pb.js';
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import type { ZodObject, ZodType } from 'zod';
import { OPERATIONS, type OperationId } from '../http/generated/operations.gen.js';

/** ZITADEL's v1 services and the prefix its REST gateway serves each under. */
export const RPC_SERVICES: readonly { service: DescService; restPrefix: string }[] = [
  { service: AdminService, restPrefix: '/admin/v1' },
  { service: ManagementService, restPrefix: '/management/v1' },
  { service: AuthService, restPrefix: '/auth/v1' },
];

/** An RPC's REST twin: the spec's operation, and the rule that leads there. */
export interface RestTwin {
  operationId: OperationId;
  /** Upper-case HTTP method. */
  httpMethod: string;
  /** The RPC's own REST path template, prefix included (`/admin/v1/text/message/verifyemail/{language}`): its variables are the request's field names. */
  template: string;
  /** `*` (the whole request but the path variables), one field's name, or '' (no body: the rest goes into the query). */
  body: string;
}

export interface RpcEntry {
  service: DescService;
  method: DescMethod;
  /** `zitadel.admin.v1.AdminService/SetDefaultVerifyEmailMessageText`, as logged and as in the URL path. */
  name: string;
  /** Absent: not offered (answers UNIMPLEMENTED). */
  twin?: RestTwin;
}

interface Rule {
  httpMethod: string;
  path: string;
  body: string;
}

/** The method's `google.api.http` rule, when it has one (every v1 RPC but the streaming ones of other services). */
export function httpRuleOf(method: DescMethod): Rule | undefined {
  if (!hasOption(method, http)) return undefined;
  const rule = getOption(method, http);
  if (rule.pattern.case === undefined || rule.pattern.case === 'custom') return undefined;
  return { httpMethod: rule.pattern.case.toUpperCase(), path: rule.pattern.value, body: rule.body };
}

const segmentsOf = (path: string) => path.split('/').slice(1);
const isVariable = (segment: string) => segment.startsWith('{') && segment.endsWith('}');
const variableName = (segment: string) => segment.slice(1, -1);

/**
 * The operation of the spec a REST call to `template` (the RPC's path) reaches, as the router would
 * route it: segment by segment, a literal of the spec's path must be the RPC's literal, and a
 * parameter of the spec's path takes an RPC variable or an RPC literal its schema accepts
 * (`/text/message/init/{language}` reaches `/text/message/{messageType}/{language}`). Of several
 * matches the one with the most literals wins, as the literal routes are registered first.
 */
export function operationFor(httpMethod: string, template: string): OperationId | undefined {
  const wanted = segmentsOf(template);
  let best: { id: OperationId; literals: number } | undefined;
  for (const [id, operation] of Object.entries(OPERATIONS) as [OperationId, (typeof OPERATIONS)[OperationId]][]) {
    if (operation.method.toUpperCase() !== httpMethod) continue;
    const segments = segmentsOf(operation.path);
    if (segments.length !== wanted.length) continue;
    const params = 'params' in operation ? ((operation.params as ZodObject).shape as Record<string, ZodType>) : {};
    let literals = 0;
    const fits = segments.every((segment, i) => {
      const rpcSegment = wanted[i];
      if (!isVariable(segment)) {
        literals++;
        return segment === rpcSegment;
      }
      if (isVariable(rpcSegment)) return true;
      return params[variableName(segment)]?.safeParse(rpcSegment).success ?? false;
    });
    if (fits && (!best || literals > best.literals)) best = { id, literals };
  }
  return best?.id;
}

/** Every RPC of the v1 services, with its twin when the spec has one. */
export function rpcTable(): RpcEntry[] {
  return RPC_SERVICES.flatMap(({ service, restPrefix }) =>
    service.methods.map((method) => {
      const name = `${service.typeName}/${method.name}`;
      const rule = httpRuleOf(method);
      // Only unary calls have a REST twin; the v1 services have no other kind.
      if (!rule || method.methodKind !== 'unary') return { service, method, name };
      const template = restPrefix + rule.path;
      const operationId = operationFor(rule.httpMethod, template);
      return { service, method, name, ...(operationId ? { twin: { operationId, httpMethod: rule.httpMethod, template, body: rule.body } } : {}) };
    }),
  );
}
