/**
 * The RPC library's own floor: @connectrpc/connect-node serving ZITADEL's
 * SetDefaultVerifyEmailMessageText with a handler that does nothing (no gateway, no app, no
 * store), on the service's own listener (HTTP/1.1 and h2c on one port, src/transport/http-server.ts). What
 * 4.1 over gRPC or Connect cannot cost less than while the service speaks them through this
 * library; `GET /` answers for readiness. Run as a child process, as the service is.
 */
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { createLimitedHttpServer } from '../packages/server/src/transport/http-server.js';

const rpc = connectNodeAdapter({
  routes: (router) => router.rpc(AdminService.method.setDefaultVerifyEmailMessageText, async () => ({ details: { sequence: 1n } })),
});
const server = createLimitedHttpServer((req, res) => {
  if (req.url === '/') res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  else rpc(req, res);
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
