/**
 * Target `rpc` (issue 28): 4.1 as ZITADEL's RPC SetDefaultVerifyEmailMessageText over gRPC (HTTP/2,
 * bench/support/h2-load.ts: one session per call in flight, and all on one session as an SDK's
 * channel makes them) and over Connect JSON (HTTP/1.1), beside the REST PUT, in turns. Target: server
 * CPU per call ≤ 1.3× REST's. With two floors, in the first store's turns: connect-node with an empty
 * handler (bench/connect-floor-server.ts) and node's own servers with no RPC library
 * (bench/node-rpc-floor-server.ts).
 */
import { create, toBinary } from '@bufbuild/protobuf';
import { SetDefaultVerifyEmailMessageTextRequestSchema } from '@zitadel/proto/zitadel/admin_pb.js';
import type { Child } from '../support/children.js';
import type { Row } from '../support/report.js';
import { type Service, startHelper } from '../support/run-servers.js';
import { stores } from '../support/run-settings.js';
import { inTurns, type Side } from '../support/turns.js';
import { setText, TEXT_PATH, textFields } from '../support/verify-email-text.js';
import { writeSide } from './verify-email-put.js';

const RPC_PATH = '/zitadel.admin.v1.AdminService/SetDefaultVerifyEmailMessageText';
const RPC_REST_TARGET = `PUT ${TEXT_PATH} (write + event), beside the RPCs`;
const RPC_TARGETS = { grpc: '4.1 SetDefaultVerifyEmailMessageText over gRPC (HTTP/2)', connect: '4.1 SetDefaultVerifyEmailMessageText over Connect JSON' } as const;
/** The same gRPC calls as an SDK's channel makes them: all in flight on one HTTP/2 session. */
const RPC_CHANNEL_TARGET = '4.1 SetDefaultVerifyEmailMessageText over gRPC, one HTTP/2 session (as an SDK channel)';
const NODE_RPC_CHANNEL_FLOOR_TARGET = "node's HTTP/2 server alone (no RPC library, no operation), gRPC, one HTTP/2 session";
const RPC_FLOOR_TARGETS = { grpc: 'connect-node alone (an empty handler), gRPC (HTTP/2)', connect: 'connect-node alone (an empty handler), Connect JSON' } as const;
const NODE_RPC_FLOOR_TARGETS = {
  grpc: "node's HTTP/2 server alone (no RPC library, no operation), gRPC",
  connect: "node's HTTP/1.1 server alone (no RPC library, no operation), Connect JSON",
} as const;
let connectFloor: Child | undefined;
let nodeRpcFloor: Child | undefined;

/**
 * An RPC floor on the service's listener: connect-node with an empty handler of the same RPC
 * (bench/connect-floor-server.ts), or node's servers with no library at all (bench/node-rpc-floor-server.ts).
 */
function startRpcFloor(script: 'connect-floor-server.ts' | 'node-rpc-floor-server.ts'): Promise<Child> {
  return startHelper(script, { log: script.replace('.ts', '.log') });
}

/**
 * 4.1 through ZITADEL's RPC, each call a change (a new title) as the REST PUT's are, beside the
 * REST PUT in turns: what the reverse gateway (src/rpc/) adds to the same operation. Every answer
 * of every side must be ok; the events each call appends are checked once over all three sides.
 */
export async function benchRpc(service: Service): Promise<Row[]> {
  const { child, headers, store } = service;
  const runId = Date.now().toString(36);
  let n = 0;
  const before = await setText(child.baseUrl, headers, `rpc ${runId} before`);
  const rest = await writeSide([child], headers, store, RPC_REST_TARGET);
  const grpc: Side = {
    target: {
      origin: child.baseUrl,
      path: RPC_PATH,
      headers: { authorization: headers.authorization },
      message: () => toBinary(SetDefaultVerifyEmailMessageTextRequestSchema, create(SetDefaultVerifyEmailMessageTextRequestSchema, { language: 'en', ...textFields(`grpc ${runId} #${n++}`) })),
    },
    serverCpuSeconds: child.cpuSeconds,
    row: async (m) => ({ target: RPC_TARGETS.grpc, store, m }),
  };
  const grpcChannel: Side = { ...grpc, target: { ...grpc.target, sessions: 1 }, row: async (m) => ({ target: RPC_CHANNEL_TARGET, store, m }) };
  const connect: Side = {
    target: {
      url: child.baseUrl,
      requests: [
        {
          method: 'POST',
          path: RPC_PATH,
          headers: { authorization: headers.authorization, 'content-type': 'application/json', 'connect-protocol-version': '1' },
          setupRequest: (req) => ({ ...req, body: JSON.stringify({ language: 'en', ...textFields(`connect ${runId} #${n++}`) }) }),
        },
      ],
    },
    serverCpuSeconds: child.cpuSeconds,
    row: async (m) => ({ target: RPC_TARGETS.connect, store, m }),
  };
  // The library's floor, beside them in the first store's turns (it has no store).
  connectFloor ??= store === stores[0] ? await startRpcFloor('connect-floor-server.ts') : undefined;
  nodeRpcFloor ??= store === stores[0] ? await startRpcFloor('node-rpc-floor-server.ts') : undefined;
  const floor =
    store === stores[0] && connectFloor && nodeRpcFloor
      ? [
          ...rpcFloorSides(connectFloor, headers.authorization, RPC_FLOOR_TARGETS),
          ...rpcFloorSides(nodeRpcFloor, headers.authorization, { ...NODE_RPC_FLOOR_TARGETS, grpcChannel: NODE_RPC_CHANNEL_FLOOR_TARGET }),
        ]
      : [];
  const measured = await inTurns([rest, grpc, grpcChannel, connect, ...floor]);
  const rows = measured.slice(0, 4);
  const after = await setText(child.baseUrl, headers, `rpc ${runId} after`);
  // Less this PUT, and the REST side's own two (writeSide's before and after).
  const appended = after - before - 3;
  const answered = rows.reduce((sum, r) => sum + r.m.ok, 0);
  const sent = rows.reduce((sum, r) => sum + r.m.sent, 0);
  // One check over the four sides (each side's own count would see the others' events).
  const eventsOk = appended >= answered && appended <= sent;
  const eventsNote = `${appended} appended over REST, gRPC and Connect, ${answered} ok, ${sent} sent`;
  return [...rows.map((r) => ({ ...r, eventsOk, eventsNote })), ...measured.slice(4)];
}

function rpcFloorSides(floor: Child, authorization: string, names: { grpc: string; connect: string; grpcChannel?: string }): Side[] {
  const body = { language: 'en', ...textFields('floor') };
  const grpcTarget = {
    origin: floor.baseUrl,
    path: RPC_PATH,
    headers: { authorization },
    message: toBinary(SetDefaultVerifyEmailMessageTextRequestSchema, create(SetDefaultVerifyEmailMessageTextRequestSchema, body)),
  };
  const channel: Side[] = names.grpcChannel ? [{ target: { ...grpcTarget, sessions: 1 }, serverCpuSeconds: floor.cpuSeconds, row: async (m) => ({ target: names.grpcChannel!, store: '-', m }) }] : [];
  return [
    {
      target: grpcTarget,
      serverCpuSeconds: floor.cpuSeconds,
      row: async (m) => ({ target: names.grpc, store: '-', m }),
    },
    ...channel,
    {
      target: { url: floor.baseUrl, requests: [{ method: 'POST', path: RPC_PATH, headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) }] },
      serverCpuSeconds: floor.cpuSeconds,
      row: async (m) => ({ target: names.connect, store: '-', m }),
    },
  ];
}

/** Issue 28's target: 4.1 over gRPC and over Connect JSON, server CPU per call ≤ 1.3× the REST PUT's (same run, in turns). */
export function rpcVerdicts(rows: Row[]): string {
  const lines: string[] = [];
  const cpuOf = (target: string, store = '-') => rows.find((r) => r.store === store && r.target === target)?.m.serverCpuMs;
  for (const store of stores) {
    const rest = cpuOf(RPC_REST_TARGET, store);
    if (!rest) continue;
    const shapes = [
      { name: 'grpc', target: RPC_TARGETS.grpc, nodeFloor: NODE_RPC_FLOOR_TARGETS.grpc, connectFloor: RPC_FLOOR_TARGETS.grpc },
      { name: 'grpc, one HTTP/2 session (as an SDK channel)', target: RPC_CHANNEL_TARGET, nodeFloor: NODE_RPC_CHANNEL_FLOOR_TARGET },
      { name: 'connect', target: RPC_TARGETS.connect, nodeFloor: NODE_RPC_FLOOR_TARGETS.connect, connectFloor: RPC_FLOOR_TARGETS.connect },
    ];
    for (const shape of shapes) {
      const cpu = cpuOf(shape.target, store);
      if (!cpu) continue;
      const ratio = cpu / rest;
      lines.push(`  ${store}: 4.1 over ${shape.name} ÷ over REST, server CPU per call: ${ratio.toFixed(2)}× (target ≤ 1.3×) → ${ratio <= 1.3 ? 'MET' : 'MISSED'}`);
      // Unary calls no longer run through connect-node (src/rpc/unary-rpc.ts): node's own server is their floor.
      const nodeFloor = cpuOf(shape.nodeFloor);
      if (nodeFloor)
        lines.push(
          `    (node's own server with no RPC library and no operation: ${(nodeFloor / rest).toFixed(2)}× the REST PUT's CPU; the gateway and the operation add ${Math.round((cpu - nodeFloor) * 1000)} µs to it, where the REST PUT costs ${Math.round(rest * 1000)} µs in all)`,
        );
      const connectFloor = shape.connectFloor ? cpuOf(shape.connectFloor) : undefined;
      if (connectFloor) lines.push(`    (connect-node alone with an empty handler, what unary calls went through until round 21: ${(connectFloor / rest).toFixed(2)}× the REST PUT's CPU)`);
    }
  }
  return lines.length ? `issue 28 target (measured in turns in this run; reported, not asserted):\n${lines.join('\n')}\n` : '';
}
