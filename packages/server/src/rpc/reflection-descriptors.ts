/**
 * The descriptors of gRPC's server reflection service, v1 and v1alpha. No installed package ships
 * them as protobuf-es descriptors (@zitadel/proto, @bufbuild/protobuf's wkt and @connectrpc/* have
 * no `grpc.reflection`), so they are described here as data: a FileDescriptorProto per version,
 * turned into descriptors by protobuf-es (`createFileRegistry`), which then encodes and decodes the
 * messages as it does any other. No codec of our own.
 *
 * Both follow grpc's published reflection.proto field for field (names, numbers, types, the oneofs):
 * https://github.com/grpc/grpc-proto/blob/master/grpc/reflection/v1/reflection.proto and
 * https://github.com/grpc/grpc/blob/master/src/proto/grpc/reflection/v1alpha/reflection.proto —
 * the two differ only in their package.
 */
import { create, createFileRegistry, type DescFile, type DescMessage, type DescMethodBiDiStreaming, type DescService, type Message } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FieldDescriptorProto_Label as Label, FieldDescriptorProto_Type as Type } from '@bufbuild/protobuf/wkt';

/** `ServerReflectionRequest`, as protobuf-es reads it (the fields this service looks at). */
export interface ReflectionRequest extends Message {
  host: string;
  messageRequest:
    | { case: 'fileByFilename' | 'fileContainingSymbol' | 'allExtensionNumbersOfType' | 'listServices'; value: string }
    | { case: 'fileContainingExtension'; value: { containingType: string; extensionNumber: number } }
    | { case: undefined; value?: undefined };
}

export interface ReflectionVersion {
  /** The descriptor file itself, answered like any other file. */
  file: DescFile;
  service: DescService;
  method: DescMethodBiDiStreaming;
  response: DescMessage;
}

export const REFLECTION_PACKAGES = ['grpc.reflection.v1', 'grpc.reflection.v1alpha'] as const;

type FieldSpec = [name: string, number: number, type: Type, more?: { message?: string; repeated?: boolean; oneof?: number }];

function message(pkg: string, name: string, fields: FieldSpec[], oneof?: string) {
  return {
    name,
    field: fields.map(([fieldName, number, type, more = {}]) => ({
      name: fieldName,
      number,
      type,
      label: more.repeated ? Label.REPEATED : Label.OPTIONAL,
      ...(more.message ? { typeName: `.${pkg}.${more.message}` } : {}),
      ...(more.oneof !== undefined ? { oneofIndex: more.oneof } : {}),
    })),
    oneofDecl: oneof ? [{ name: oneof }] : [],
  };
}

function reflectionFile(pkg: string) {
  const { STRING, MESSAGE, INT32, BYTES } = Type;
  return create(FileDescriptorProtoSchema, {
    name: `${pkg.replaceAll('.', '/')}/reflection.proto`,
    package: pkg,
    syntax: 'proto3',
    messageType: [
      message(
        pkg,
        'ServerReflectionRequest',
        [
          ['host', 1, STRING],
          ['file_by_filename', 3, STRING, { oneof: 0 }],
          ['file_containing_symbol', 4, STRING, { oneof: 0 }],
          ['file_containing_extension', 5, MESSAGE, { message: 'ExtensionRequest', oneof: 0 }],
          ['all_extension_numbers_of_type', 6, STRING, { oneof: 0 }],
          ['list_services', 7, STRING, { oneof: 0 }],
        ],
        'message_request',
      ),
      message(pkg, 'ExtensionRequest', [
        ['containing_type', 1, STRING],
        ['extension_number', 2, INT32],
      ]),
      message(
        pkg,
        'ServerReflectionResponse',
        [
          ['valid_host', 1, STRING],
          ['original_request', 2, MESSAGE, { message: 'ServerReflectionRequest' }],
          ['file_descriptor_response', 4, MESSAGE, { message: 'FileDescriptorResponse', oneof: 0 }],
          ['all_extension_numbers_response', 5, MESSAGE, { message: 'ExtensionNumberResponse', oneof: 0 }],
          ['list_services_response', 6, MESSAGE, { message: 'ListServiceResponse', oneof: 0 }],
          ['error_response', 7, MESSAGE, { message: 'ErrorResponse', oneof: 0 }],
        ],
        'message_response',
      ),
      message(pkg, 'FileDescriptorResponse', [['file_descriptor_proto', 1, BYTES, { repeated: true }]]),
      message(pkg, 'ExtensionNumberResponse', [
        ['base_type_name', 1, STRING],
        ['extension_number', 2, INT32, { repeated: true }],
      ]),
      message(pkg, 'ListServiceResponse', [['service', 1, MESSAGE, { message: 'ServiceResponse', repeated: true }]]),
      message(pkg, 'ServiceResponse', [['name', 1, STRING]]),
      message(pkg, 'ErrorResponse', [
        ['error_code', 1, INT32],
        ['error_message', 2, STRING],
      ]),
    ],
    service: [
      {
        name: 'ServerReflection',
        method: [
          {
            name: 'ServerReflectionInfo',
            inputType: `.${pkg}.ServerReflectionRequest`,
            outputType: `.${pkg}.ServerReflectionResponse`,
            clientStreaming: true,
            serverStreaming: true,
          },
        ],
      },
    ],
  });
}

function reflectionVersion(pkg: string): ReflectionVersion {
  const proto = reflectionFile(pkg);
  const registry = createFileRegistry(proto, () => undefined);
  const file = registry.getFile(proto.name);
  const service = registry.getService(`${pkg}.ServerReflection`);
  const response = registry.getMessage(`${pkg}.ServerReflectionResponse`);
  if (!file || !service || !response) throw new Error(`the ${pkg} reflection descriptors did not resolve`);
  return { file, service, method: service.methods[0] as DescMethodBiDiStreaming, response };
}

/** v1 first: grpcurl and Postman ask for v1 and fall back to v1alpha (older grpc-go servers have only that). */
export const REFLECTION_VERSIONS: readonly ReflectionVersion[] = REFLECTION_PACKAGES.map(reflectionVersion);
