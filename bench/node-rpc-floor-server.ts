/**
 * Node's own floor for an RPC: the service's listener (HTTP/1.1 and h2c on one port,
 * src/transport/http-server.ts) answering ZITADEL's SetDefaultVerifyEmailMessageText with no RPC library,
 * no gateway, no app and no store: the request message decoded and an answer encoded with
 * protobuf-es, gRPC's five-byte frame and its status trailer written by hand. What 4.1 over gRPC
 * or Connect JSON cannot cost less than on node's HTTP/2 and HTTP/1.1 servers, whatever library
 * speaks the protocol; `GET /` answers for readiness. Run as a child process, as the service is.
 * A measuring stick only: it checks nothing a real server must (timeouts, errors, compression).
 */
import { create, fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import { SetDefaultVerifyEmailMessageTextRequestSchema as Request, SetDefaultVerifyEmailMessageTextResponseSchema as Response } from '@zitadel/proto/zitadel/admin_pb.js';
import { createLimitedHttpServer } from '../packages/server/src/transport/http-server.js';

const answer = () => create(Response, { details: { sequence: 1n } });

const server = createLimitedHttpServer((req, res) => {
  if (req.url === '/') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (String(req.headers['content-type'] ?? '').startsWith('application/grpc')) {
      fromBinary(Request, body.subarray(5));
      const message = toBinary(Response, answer());
      const frame = Buffer.alloc(5 + message.length);
      frame.writeUInt32BE(message.length, 1);
      frame.set(message, 5);
      res.writeHead(200, { 'content-type': 'application/grpc' });
      (res as unknown as { addTrailers(trailers: Record<string, string>): void }).addTrailers({ 'grpc-status': '0' });
      res.end(frame);
      return;
    }
    fromJson(Request, JSON.parse(body.toString('utf8')));
    const json = JSON.stringify(toJson(Response, answer()));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(json)) }).end(json);
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
