/** Calls of the service's API a bench target prepares its requests with (users, secrets, projects, apps). */
import type { Child } from './children.js';

export const basicAuth = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** One JSON call; anything but a 2xx throws with the answer. */
export async function apiCall(child: Child, authorization: string, method: string, path: string, body?: unknown): Promise<Record<string, any>> {
  const res = await fetch(child.baseUrl + path, { method, headers: { authorization, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  return res.json() as Promise<Record<string, any>>;
}
