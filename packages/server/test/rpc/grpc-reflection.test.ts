/**
 * gRPC server reflection (grpc.reflection.v1 and v1alpha), as grpcurl and Postman use it: a real
 * gRPC client (connect-node's gRPC transport, HTTP/2 with prior knowledge) against the whole
 * service on its own loopback port. The client knows nothing of ZITADEL's protos but what the
 * service answers: it builds a registry from the returned FileDescriptorProtos and calls an RPC
 * with it. Reflection reads no storage, so SQLite is enough.
 */
import { create, createFileRegistry, type DescMessage, type DescMethodBiDiStreaming, type DescMethodUnary, fromBinary, type Message, type MessageInitShape } from '@bufbuild/protobuf';
import { type FileDescriptorProto, FileDescriptorProtoSchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { rpcTable } from '../../src/rpc/offered-rpcs.js';
import { REFLECTION_VERSIONS, type ReflectionVersion } from '../../src/rpc/reflection-descriptors.js';
import { type OidcTestServer, startOidcServer } from '../support/oidc-server.js';

type RequestInit = MessageInitShape<DescMessage>;
interface Answer extends Message {
  validHost: string;
  originalRequest?: Message;
  messageResponse:
    | { case: 'fileDescriptorResponse'; value: { fileDescriptorProto: Uint8Array[] } }
    | { case: 'allExtensionNumbersResponse'; value: { baseTypeName: string; extensionNumber: number[] } }
    | { case: 'listServicesResponse'; value: { service: { name: string }[] } }
    | { case: 'errorResponse'; value: { errorCode: number; errorMessage: string } }
    | { case: undefined };
}

const [V1, V1ALPHA] = REFLECTION_VERSIONS;

/** One reflection stream: every request sent, every answer read, in order. */
async function reflect(transport: Transport, version: ReflectionVersion, requests: RequestInit[]): Promise<Answer[]> {
  const method: DescMethodBiDiStreaming = version.method;
  async function* input() {
    for (const request of requests) yield create(method.input, request);
  }
  const response = await transport.stream(method, undefined, 10_000, undefined, input(), undefined);
  const answers: Answer[] = [];
  for await (const answer of response.message) answers.push(answer as Answer);
  return answers;
}

function files(answer: Answer): FileDescriptorProto[] {
  expect(answer.messageResponse.case, JSON.stringify(answer.messageResponse)).toBe('fileDescriptorResponse');
  const response = answer.messageResponse as Extract<Answer['messageResponse'], { case: 'fileDescriptorResponse' }>;
  return response.value.fileDescriptorProto.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes));
}

/**
 * The answer's files (the asked-for one first, then what it imports, in no promised order) with
 * every file after those it imports, as a FileDescriptorSet must be for protobuf-es.
 */
function inDependencyOrder(protos: FileDescriptorProto[]): FileDescriptorProto[] {
  const byName = new Map(protos.map((proto) => [proto.name, proto]));
  const ordered: FileDescriptorProto[] = [];
  const visit = (proto: FileDescriptorProto) => {
    if (ordered.includes(proto)) return;
    for (const dependency of proto.dependency) visit(byName.get(dependency)!);
    ordered.push(proto);
  };
  protos.forEach(visit);
  return ordered;
}

function errorOf(answer: Answer) {
  expect(answer.messageResponse.case).toBe('errorResponse');
  return (answer.messageResponse as Extract<Answer['messageResponse'], { case: 'errorResponse' }>).value;
}

describe('gRPC server reflection', () => {
  let s: OidcTestServer;
  let grpc: Transport;
  const logLines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const logger = createLogger('info', (line) => void logLines.push(JSON.parse(line)));
    s = await startOidcServer('sqlite', { logger });
    // The service's own port: it speaks h2c beside HTTP/1.1.
    grpc = createGrpcTransport({ baseUrl: s.issuer });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  it('lists the offered services and the reflection services, without a token', async () => {
    const [answer] = await reflect(grpc, V1, [{ host: 'localhost', messageRequest: { case: 'listServices', value: '' } }]);
    expect(answer.validHost).toBe('localhost');
    expect(answer.messageResponse.case).toBe('listServicesResponse');
    const names = (answer.messageResponse as Extract<Answer['messageResponse'], { case: 'listServicesResponse' }>).value.service.map((service) => service.name);
    const offered = [
      ...new Set(
        rpcTable()
          .filter((entry) => entry.twin)
          .map((entry) => entry.service.typeName),
      ),
    ];
    expect(offered).toEqual(expect.arrayContaining(['zitadel.admin.v1.AdminService', 'zitadel.management.v1.ManagementService']));
    expect(names.sort()).toEqual([...offered, 'grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection'].sort());
  });

  it('answers the file declaring a service with its transitive dependencies, enough to build the types and call an RPC', async () => {
    const [answer] = await reflect(grpc, V1, [{ messageRequest: { case: 'fileContainingSymbol', value: 'zitadel.admin.v1.AdminService' } }]);
    const protos = files(answer);
    expect(protos[0].name).toBe('zitadel/admin.proto');
    const names = new Set(protos.map((proto) => proto.name));
    expect(names.size).toBe(protos.length);
    for (const proto of protos) for (const dependency of proto.dependency) expect(names, `${proto.name} imports ${dependency}`).toContain(dependency);

    // What grpcurl does: a registry from the answer alone, its descriptors used to call the RPC.
    const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: inDependencyOrder(protos) }));
    const service = registry.getService('zitadel.admin.v1.AdminService');
    const method = service?.methods.find((candidate) => candidate.name === 'SetDefaultVerifyEmailMessageText');
    expect(method?.input.typeName).toBe('zitadel.admin.v1.SetDefaultVerifyEmailMessageTextRequest');
    expect(method?.input.fields.map((field) => field.name)).toEqual(expect.arrayContaining(['language', 'title', 'text', 'button_text']));
    expect(method?.output.fields.find((field) => field.name === 'details')?.message?.typeName).toBe('zitadel.v1.ObjectDetails');

    const title = 'Verify (reflected)';
    const set = await grpc.unary(
      method as DescMethodUnary,
      undefined,
      10_000,
      { authorization: `Bearer ${s.t.adminToken}` },
      create(method!.input, { language: 'de', title, text: 'Hallo {{.DisplayName}}', buttonText: 'Los' }),
      undefined,
    );
    expect((set.message as unknown as { details?: { sequence: bigint } }).details?.sequence).toBeGreaterThan(0n);
    const rest = await s.api('GET', '/admin/v1/text/message/verifyemail/de');
    expect(rest.body.customText.title).toBe(title);
  });

  it('resolves methods, messages, fields and enum values to their files; NOT_FOUND for an unknown one, and the stream goes on', async () => {
    const answers = await reflect(grpc, V1, [
      { messageRequest: { case: 'fileContainingSymbol', value: 'zitadel.management.v1.ManagementService.AddUserGrant' } },
      { messageRequest: { case: 'fileContainingSymbol', value: 'zitadel.admin.v1.SetDefaultVerifyEmailMessageTextRequest.language' } },
      { messageRequest: { case: 'fileContainingSymbol', value: 'zitadel.no.such.Symbol' } },
      { messageRequest: { case: 'fileByFilename', value: 'zitadel/management.proto' } },
      { messageRequest: { case: 'fileByFilename', value: 'no/such/file.proto' } },
      { messageRequest: { case: 'fileContainingSymbol', value: 'google.protobuf.Timestamp' } },
    ]);
    expect(answers).toHaveLength(6);
    const first = files(answers[0]);
    expect(first[0].name).toBe('zitadel/management.proto');
    expect(files(answers[1])[0].name).toBe('zitadel/admin.proto');
    expect(errorOf(answers[2])).toMatchObject({ errorCode: Code.NotFound, errorMessage: expect.stringContaining('zitadel.no.such.Symbol') });
    expect(answers[2].originalRequest).toMatchObject({ messageRequest: { case: 'fileContainingSymbol', value: 'zitadel.no.such.Symbol' } });
    // A file already sent on this stream is sent again when asked for, its dependencies not.
    expect(files(answers[3]).map((proto) => proto.name)).toEqual(['zitadel/management.proto']);
    expect(errorOf(answers[4]).errorCode).toBe(Code.NotFound);
    expect(files(answers[5]).map((proto) => proto.name)).toEqual(['google/protobuf/timestamp.proto']);
    expect(first.length).toBeGreaterThan(10);
  });

  it('answers extensions: the file of google.api.http, the extension numbers of MethodOptions, NOT_FOUND for an unknown type', async () => {
    const HTTP_RULE = 72295728; // google.api.http, on google.protobuf.MethodOptions
    const answers = await reflect(grpc, V1, [
      { messageRequest: { case: 'fileContainingExtension', value: { containingType: 'google.protobuf.MethodOptions', extensionNumber: HTTP_RULE } } },
      { messageRequest: { case: 'fileContainingExtension', value: { containingType: 'google.protobuf.MethodOptions', extensionNumber: 1 } } },
      { messageRequest: { case: 'allExtensionNumbersOfType', value: 'google.protobuf.MethodOptions' } },
      { messageRequest: { case: 'allExtensionNumbersOfType', value: 'zitadel.admin.v1.SetDefaultVerifyEmailMessageTextRequest' } },
      { messageRequest: { case: 'allExtensionNumbersOfType', value: 'no.such.Type' } },
      {},
    ]);
    expect(files(answers[0])[0].name).toBe('google/api/annotations.proto');
    expect(errorOf(answers[1]).errorCode).toBe(Code.NotFound);
    expect(answers[2].messageResponse).toMatchObject({ case: 'allExtensionNumbersResponse', value: { baseTypeName: 'google.protobuf.MethodOptions' } });
    expect((answers[2].messageResponse as Extract<Answer['messageResponse'], { case: 'allExtensionNumbersResponse' }>).value.extensionNumber).toContain(HTTP_RULE);
    expect(answers[3].messageResponse).toMatchObject({ case: 'allExtensionNumbersResponse', value: { extensionNumber: [] } });
    expect(errorOf(answers[4]).errorCode).toBe(Code.NotFound);
    expect(errorOf(answers[5]).errorCode).toBe(Code.InvalidArgument);
  });

  it('serves v1alpha too, and describes itself', async () => {
    const answers = await reflect(grpc, V1ALPHA, [
      { messageRequest: { case: 'listServices', value: '*' } },
      { messageRequest: { case: 'fileContainingSymbol', value: 'grpc.reflection.v1alpha.ServerReflection' } },
    ]);
    expect(answers[0].messageResponse.case).toBe('listServicesResponse');
    const [own] = files(answers[1]);
    expect(own).toMatchObject({ name: 'grpc/reflection/v1alpha/reflection.proto', package: 'grpc.reflection.v1alpha' });
    const described = createFileRegistry(own, () => undefined).getService('grpc.reflection.v1alpha.ServerReflection');
    expect(described?.methods[0]).toMatchObject({ name: 'ServerReflectionInfo', methodKind: 'bidi_streaming' });
  });

  it('logs one line per reflection stream, with its status', async () => {
    logLines.length = 0;
    await reflect(grpc, V1, [{ messageRequest: { case: 'listServices', value: '' } }]);
    await expect
      .poll(() => logLines.filter((line) => line.msg === 'rpc'))
      .toEqual([expect.objectContaining({ rpc: 'grpc.reflection.v1.ServerReflection/ServerReflectionInfo', protocol: 'grpc', code: 0 })]);
  });

  it('answers an unknown method of the reflection package UNIMPLEMENTED, and a Connect (HTTP/1.1) attempt at the stream with an error', async () => {
    const unknown = await fetch(`${s.issuer}/grpc.reflection.v1.ServerReflection/Nothing`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(unknown.status).toBe(501);
    expect(await unknown.json()).toMatchObject({ code: 'unimplemented' });
    const connect = createConnectTransport({ baseUrl: s.issuer, httpVersion: '1.1' });
    const failure = await reflect(connect, V1, [{ messageRequest: { case: 'listServices', value: '' } }]).then(
      () => undefined,
      (error: unknown) => ConnectError.from(error),
    );
    expect(failure).toBeInstanceOf(ConnectError);
  });
});
