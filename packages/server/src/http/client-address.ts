/**
 * The address a login request comes from, for the password verifier's fairness between clients
 * (auth/password-verifier.ts). Directly: the socket's peer. Behind the TLS-terminating proxy
 * (`trustProxy`): the last X-Forwarded-For entry, the one that proxy appended — earlier entries
 * are whatever the client sent, and trusting them would let one client pose as many.
 */
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';

export function clientAddress(c: Context, trustProxy: boolean | undefined): string {
  const socketAddress = (c.env as unknown as HttpBindings).incoming?.socket?.remoteAddress ?? '';
  if (!trustProxy) return socketAddress;
  const forwarded = c.req.header('x-forwarded-for')?.split(',').pop()?.trim();
  return forwarded || socketAddress;
}
