/**
 * grpc-gateway's mapping, run backwards: a decoded request message becomes the REST request its
 * `google.api.http` rule names, and the REST answer becomes the response message or the RPC's
 * error. The JSON is proto3's canonical JSON on both sides (protobuf-es `toJson`/`fromJson`),
 * which is what ZITADEL's REST API speaks and the spec follows: int64 as strings, enums by name,
 * timestamps as RFC 3339, durations as "1.5s", a oneof as the one field set.
 */
import { type DescField, type DescMessage, fromJson, type JsonObject, type JsonValue, type Message, toJson } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { ErrorDetailSchema } from '@zitadel/proto/zitadel/message_pb.js';
import { DomainError, GrpcCode } from '../domain/errors.js';
import { httpStatusOf } from '../http/errors.js';
import type { RestTwin } from './offered-rpcs.js';

export interface RestRequest {
  method: string;
  /** Path and query. */
  target: string;
  /** JSON, when the rule has a body. */
  body?: string;
}

/**
 * The REST request of `message`: the template's variables from the fields they name (then left
 * out of the body), the body `*` (every other field) or one field, and for a rule without a body
 * the other fields as query parameters, as grpc-gateway reads them. A field at its zero value is
 * not sent: proto3 cannot tell it from an unset one, and grpc-gateway reads an absent JSON field as
 * the zero value, so the REST API means the same by both.
 */
export function restRequestOf(twin: RestTwin, schema: DescMessage, message: Message): RestRequest {
  const rule = compiledRule(twin, schema);
  const json = toJson(schema, message) as JsonObject;
  let target = rule.literals[0];
  rule.variables.forEach((name, i) => {
    const value = json[name];
    // A path cannot hold an empty segment; the REST API would not find the route at all.
    if (value === undefined || value === '') throw new DomainError(GrpcCode.InvalidArgument, 'RPC-P4th0', `invalid ${name}: must not be empty`);
    // Left out of the body and the query. Not `delete`: that turns the object into a dictionary,
    // which JSON.stringify walks several times slower; it leaves out undefined members as well.
    json[name] = undefined as unknown as JsonValue;
    target += encodeURIComponent(String(value)) + rule.literals[i + 1];
  });
  if (twin.body === '*') return { method: twin.httpMethod, target, body: JSON.stringify(json) };
  if (rule.bodyField) return { method: twin.httpMethod, target, body: JSON.stringify(json[rule.bodyField] ?? {}) };
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(json)) addQuery(query, key, value);
  const search = query.toString();
  return { method: twin.httpMethod, target: search ? `${target}?${search}` : target };
}

/** A twin's template, read once: the literal text around its variables, and the JSON names of the fields they name. */
interface CompiledRule {
  /** One more than `variables`: the text before, between and after them. */
  literals: string[];
  variables: string[];
  /** The JSON name of the body's one field, when the rule's body is a field. */
  bodyField?: string;
}

const compiledRules = new WeakMap<RestTwin, CompiledRule>();

function compiledRule(twin: RestTwin, schema: DescMessage): CompiledRule {
  let rule = compiledRules.get(twin);
  if (!rule) {
    // `{role_key=**}`: the variable's name is before the `=` (its pattern is the REST side's business).
    const parts = twin.template.split(/\{([^}=]+)(?:=[^}]*)?\}/);
    rule = {
      literals: parts.filter((_, i) => i % 2 === 0),
      variables: parts.filter((_, i) => i % 2 === 1).map((name) => fieldNamed(schema, name).jsonName),
      bodyField: twin.body && twin.body !== '*' ? fieldNamed(schema, twin.body).jsonName : undefined,
    };
    compiledRules.set(twin, rule);
  }
  return rule;
}

function fieldNamed(schema: DescMessage, name: string): DescField {
  const field = schema.fields.find((f) => f.name === name);
  // The rules come with the descriptors; a rule naming no field is a broken descriptor set.
  if (!field) throw new Error(`${schema.typeName} has no field ${name}`);
  return field;
}

/** grpc-gateway's query form: nested fields dotted, repeated ones repeated. */
function addQuery(query: URLSearchParams, key: string, value: JsonValue): void {
  if (Array.isArray(value)) for (const item of value) addQuery(query, key, item);
  else if (value !== null && typeof value === 'object') for (const [sub, inner] of Object.entries(value)) addQuery(query, `${key}.${sub}`, inner);
  else if (value !== null && value !== undefined) query.append(key, String(value));
}

/**
 * The response message of a successful REST answer. Fields the REST answer has beyond ZITADEL's
 * message (this service's additions) are dropped, as a ZITADEL client would not know them.
 */
export function messageOfRestAnswer<S extends DescMessage>(schema: S, json: JsonValue, rpcName: string) {
  try {
    return fromJson(schema, json, { ignoreUnknownFields: true });
  } catch (error) {
    // The REST answer does not fit ZITADEL's message: a bug of this service, not of the caller.
    throw Object.assign(new DomainError(GrpcCode.Internal, 'RPC-Sh4p3', `the answer of ${rpcName} does not fit its message`), { cause: error });
  }
}

/** What a REST error answer says: ZITADEL's body `{code, message, details: [{id, message}]}`. */
interface ErrorAnswer {
  code?: unknown;
  message?: unknown;
  details?: { id?: unknown; message?: unknown }[];
}

/**
 * A REST error answer → the RPC's error as ZITADEL's gRPC server sends it: the body's code and
 * message, and `zitadel.v1.ErrorDetail` (id, message) in the status details. An answer without a
 * code takes the code grpc-gateway would have turned into that status.
 */
export function rpcErrorOfRestAnswer(status: number, text: string): ConnectError {
  let body: ErrorAnswer = {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object') body = parsed as ErrorAnswer;
  } catch {
    /* not JSON: the status alone tells */
  }
  const code = typeof body.code === 'number' && body.code > 0 && body.code <= 16 ? (body.code as Code) : codeOfHttpStatus(status);
  const message = typeof body.message === 'string' ? body.message : `HTTP ${status}`;
  const detail = body.details?.[0];
  const details = detail && typeof detail.id === 'string' ? [{ desc: ErrorDetailSchema, value: { id: detail.id, message: typeof detail.message === 'string' ? detail.message : '' } }] : [];
  return new ConnectError(message, code, undefined, details);
}

/** A DomainError raised on the RPC side (before or instead of a REST call), in the same form as the REST API's. */
export function rpcErrorOfDomainError(error: DomainError): ConnectError {
  return new ConnectError(`${error.message} (${error.id})`, error.code as number as Code, undefined, [{ desc: ErrorDetailSchema, value: { id: error.id, message: error.message } }]);
}

/**
 * grpc-gateway's code → status table (http/errors.ts) read backwards; where two codes share a
 * status the first in code order wins (409: ALREADY_EXISTS, 400: INVALID_ARGUMENT). 413 is this
 * service's body limit (RESOURCE_EXHAUSTED), and anything else is UNKNOWN.
 */
const CODE_OF_STATUS: ReadonlyMap<number, Code> = (() => {
  const map = new Map<number, Code>([[413, Code.ResourceExhausted]]);
  for (const code of Object.values(GrpcCode).sort((a, b) => a - b)) {
    const status = httpStatusOf(code);
    if (!map.has(status)) map.set(status, code as number as Code);
  }
  map.set(500, Code.Internal);
  return map;
})();

export function codeOfHttpStatus(status: number): Code {
  return CODE_OF_STATUS.get(status) ?? Code.Unknown;
}
