/**
 * gRPC server reflection (grpc.reflection.v1 and v1alpha, `ServerReflectionInfo`), so that grpcurl,
 * Postman and grpc_cli list the offered services and describe and call their methods. It answers
 * from the descriptors the RPCs are served with (@zitadel/proto): what reflection shows is what
 * the service decodes. Open to everyone, as in ZITADEL (internal/api/api.go registers grpc-go's
 * reflection on its one gRPC server, outside its authorization interceptor's method table): the
 * descriptors are ZITADEL's published protos, no data of the instance.
 */
import { type DescExtension, type DescFile, type DescService, type MessageInitShape, toBinary } from '@bufbuild/protobuf';
import { nestedTypes } from '@bufbuild/protobuf/reflect';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { Code, type HandlerContext } from '@connectrpc/connect';
import { REFLECTION_VERSIONS, type ReflectionRequest, type ReflectionVersion } from './reflection-descriptors.js';

type ReflectionAnswer = MessageInitShape<ReflectionVersion['response']>;

/** What reflection knows: the listed services, and every file they need, by name and by symbol. */
export class ReflectionCatalog {
  /** The offered services and the reflection services, by full name. */
  readonly serviceNames: readonly string[];
  readonly #fileByName = new Map<string, DescFile>();
  readonly #fileBySymbol = new Map<string, DescFile>();
  readonly #messageNames = new Set<string>();
  readonly #extensions: DescExtension[] = [];
  readonly #encoded = new Map<DescFile, Uint8Array>();

  constructor(services: readonly DescService[]) {
    const listed = [...services, ...REFLECTION_VERSIONS.map((version) => version.service)];
    this.serviceNames = listed.map((service) => service.typeName);
    for (const service of listed) this.#addFile(service.file);
  }

  /** The answer to one request of a stream; `sent` holds the files this stream has had already. */
  answer(request: ReflectionRequest, sent: Set<string>): ReflectionAnswer {
    const head = { validHost: request.host, originalRequest: request };
    const { case: kind, value } = request.messageRequest;
    switch (kind) {
      case 'listServices':
        return { ...head, messageResponse: { case: 'listServicesResponse', value: { service: this.serviceNames.map((name) => ({ name })) } } };
      case 'fileByFilename':
        return { ...head, ...this.#filesAnswer(this.#fileByName.get(value), sent, `file ${value} not found`) };
      case 'fileContainingSymbol':
        return { ...head, ...this.#filesAnswer(this.#fileBySymbol.get(stripLeadingDot(value)), sent, `symbol ${value} not found`) };
      case 'fileContainingExtension': {
        const extendee = stripLeadingDot(value.containingType);
        const extension = this.#extensions.find((candidate) => candidate.extendee.typeName === extendee && candidate.number === value.extensionNumber);
        return { ...head, ...this.#filesAnswer(extension?.file, sent, `extension ${value.extensionNumber} of ${value.containingType} not found`) };
      }
      case 'allExtensionNumbersOfType': {
        const typeName = stripLeadingDot(value);
        if (!this.#messageNames.has(typeName)) return { ...head, ...errorAnswer(Code.NotFound, `type ${value} not found`) };
        const numbers = this.#extensions.filter((extension) => extension.extendee.typeName === typeName).map((extension) => extension.number);
        return { ...head, messageResponse: { case: 'allExtensionNumbersResponse', value: { baseTypeName: typeName, extensionNumber: numbers } } };
      }
      default:
        return { ...head, ...errorAnswer(Code.InvalidArgument, 'the request names no reflection query') };
    }
  }

  /**
   * The file, then its transitive dependencies (each serialized FileDescriptorProto, as the
   * protocol has them), breadth-first. The protocol lets a server leave out files it sent earlier
   * on the same stream; the requested file itself is always sent.
   */
  #filesAnswer(file: DescFile | undefined, sent: Set<string>, notFound: string): Pick<ReflectionAnswer, 'messageResponse'> {
    if (!file) return errorAnswer(Code.NotFound, notFound);
    const encoded: Uint8Array[] = [];
    const queue = [file];
    const seen = new Set<DescFile>();
    for (let next = queue.shift(); next; next = queue.shift()) {
      if (seen.has(next)) continue;
      seen.add(next);
      if (next === file || !sent.has(next.proto.name)) {
        sent.add(next.proto.name);
        encoded.push(this.#encode(next));
      }
      queue.push(...next.dependencies);
    }
    return { messageResponse: { case: 'fileDescriptorResponse', value: { fileDescriptorProto: encoded } } };
  }

  #encode(file: DescFile): Uint8Array {
    let bytes = this.#encoded.get(file);
    if (!bytes) this.#encoded.set(file, (bytes = toBinary(FileDescriptorProtoSchema, file.proto)));
    return bytes;
  }

  /** The file and its dependencies, with every symbol each declares (what grpc-go's registry resolves). */
  #addFile(file: DescFile): void {
    if (this.#fileByName.has(file.proto.name)) return;
    this.#fileByName.set(file.proto.name, file);
    for (const type of nestedTypes(file)) {
      this.#fileBySymbol.set(type.typeName, file);
      switch (type.kind) {
        case 'message':
          this.#messageNames.add(type.typeName);
          for (const member of [...type.fields, ...type.oneofs]) this.#fileBySymbol.set(`${type.typeName}.${member.name}`, file);
          break;
        case 'enum': {
          // Enum values are scoped beside their enum, as in C++.
          const scope = type.typeName.slice(0, type.typeName.lastIndexOf('.') + 1);
          for (const value of type.values) this.#fileBySymbol.set(scope + value.name, file);
          break;
        }
        case 'service':
          for (const method of type.methods) this.#fileBySymbol.set(`${type.typeName}.${method.name}`, file);
          break;
        case 'extension':
          this.#extensions.push(type);
          break;
      }
    }
    for (const dependency of file.dependencies) this.#addFile(dependency);
  }
}

function errorAnswer(code: Code, message: string): Pick<ReflectionAnswer, 'messageResponse'> {
  return { messageResponse: { case: 'errorResponse', value: { errorCode: code, errorMessage: message } } };
}

const stripLeadingDot = (name: string) => (name.startsWith('.') ? name.slice(1) : name);

/** The bidi stream of one version: an answer per request, in order, until the client ends its side. */
export function reflectionImplementation(catalog: ReflectionCatalog) {
  return async function* (requests: AsyncIterable<ReflectionRequest>, _context: HandlerContext): AsyncIterable<ReflectionAnswer> {
    const sent = new Set<string>();
    for await (const request of requests) yield catalog.answer(request, sent);
  };
}

export { REFLECTION_VERSIONS };
