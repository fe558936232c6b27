/**
 * The address a login request comes from, for the limits that are kept per client: the password
 * verifier's fairness between clients (auth/password-verifier.ts) and self-registration's rate
 * (domain/login/registration.ts). Directly: the socket's peer. Behind the TLS-terminating proxy
 * (`trustProxy`): the last X-Forwarded-For entry, the one that proxy appended — earlier entries
 * are whatever the client sent, and trusting them would let one client pose as many.
 *
 * An IPv6 client counts by its /64 network: one host (or one customer of a provider) has a whole
 * /64 to pick addresses from, so per-address limits keyed on the full address would give it 2^64
 * shares. An IPv4 client seen as `::ffff:a.b.c.d` on a dual-stack listener is `a.b.c.d`.
 */
import { isIPv6 } from 'node:net';
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { clientAddressKey } from '../transport/http-server.js';

export function clientAddress(c: Context, trustProxy: boolean | undefined): string {
  const socketAddress = (c.env as unknown as HttpBindings).incoming?.socket?.remoteAddress ?? '';
  const forwarded = trustProxy ? c.req.header('x-forwarded-for')?.split(',').pop()?.trim() : undefined;
  return clientKey(forwarded || socketAddress);
}

/** The key a client's address counts under: IPv4 as it is, IPv6 by its /64 (`2001:db8:1:2::/64`). */
export function clientKey(address: string): string {
  const plain = clientAddressKey(address);
  if (!isIPv6(plain)) return plain;
  return `${expandIPv6(plain).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, without leading zeros (`::1` → 0,0,0,0,0,0,0,1). */
function expandIPv6(address: string): string[] {
  const [head, tail] = address.toLowerCase().split('%')[0]!.split('::') as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  // An embedded IPv4 tail (`::ffff:1.2.3.4` forms other than the mapped one) is two groups.
  const words = (part: string | undefined) => groups(part).flatMap((g) => (g.includes('.') ? ipv4Words(g) : [g]));
  const front = words(head);
  const back = tail === undefined ? [] : words(tail);
  const middle = tail === undefined ? [] : Array(8 - front.length - back.length).fill('0');
  return [...front, ...middle, ...back].map((g) => Number.parseInt(g, 16).toString(16));
}

function ipv4Words(dotted: string): string[] {
  const [a, b, c, d] = dotted.split('.').map(Number) as [number, number, number, number];
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}
