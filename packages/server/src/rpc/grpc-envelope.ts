/**
 * gRPC's length-prefixed message (PROTOCOL-HTTP2.md, "Length-Prefixed-Message"): a flags byte, the
 * data's length (4 bytes, big-endian), the data. Written here for the lean path's answers and
 * gRPC-web's rewritten trailer frame; read by connect everywhere else.
 */

/** The flags byte's low bit: the data is compressed. */
export const COMPRESSED_FLAG = 0x01;
/** gRPC-web: the high bit marks the trailer frame. */
export const TRAILER_FLAG = 0x80;

/**
 * The envelope as connect's `encodeEnvelope` frames it, in a Buffer from node's pool: `new
 * Uint8Array` allocates an ArrayBuffer of its own, ~0.5 µs an answer where a pooled slice costs
 * next to nothing (BENCHMARKS.md round 30).
 */
export function enveloped(flags: number, data: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(5 + data.length);
  frame[0] = flags;
  frame.writeUInt32BE(data.length, 1);
  frame.set(data, 5);
  return frame;
}
