/**
 * Calls this service makes to addresses an administrator configured (an identity provider's keys
 * endpoint, later domain checks): each with a deadline, a cap on the answer's size, no redirects
 * (a configured URL is the whole trust decision: following a redirect would reach an address
 * nobody configured), and only http(s). Failures are `OutboundError`s whose message says what
 * went wrong in words a login page or an API error can show.
 */
export class OutboundError extends Error {}

export interface OutboundLimits {
  timeoutMs: number;
  maxBytes: number;
}

/** Statuses whose answer has no body (a Response cannot be built with one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * One request with the limits above, any method: the answer is read completely (at most
 * `maxBytes`) within `timeoutMs` and handed back as a fresh Response. Redirects are returned, not
 * followed. Libraries that take a `fetch` (openid-client's `customFetch`) get it through this.
 */
export async function fetchCapped(url: string | URL, limits: OutboundLimits, init: RequestInit = {}): Promise<Response> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new OutboundError(`${String(url)} is not a URL`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new OutboundError(`${target.href} is not an http(s) URL`);
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = init.signal ? AbortSignal.any([timeout, init.signal]) : timeout;
  let res: Response;
  try {
    res = await fetch(target, { ...init, redirect: 'manual', signal });
  } catch (error) {
    if (timeout.aborted) throw new OutboundError(`${target.origin} did not answer within ${limits.timeoutMs / 1000} s`);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new OutboundError(`${target.origin} could not be reached (${cause?.code ?? cause?.message ?? (error as Error).message})`);
  }
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > limits.maxBytes) {
    await res.body?.cancel();
    throw new OutboundError(`${target.href} answered with more than ${limits.maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body ?? []) {
      size += chunk.byteLength;
      if (size > limits.maxBytes) {
        await res.body?.cancel().catch(() => undefined);
        throw new OutboundError(`${target.href} answered with more than ${limits.maxBytes} bytes`);
      }
      chunks.push(Buffer.from(chunk));
    }
  } catch (error) {
    if (error instanceof OutboundError) throw error;
    if (timeout.aborted) throw new OutboundError(`${target.origin} did not finish its answer within ${limits.timeoutMs / 1000} s`);
    throw new OutboundError(`reading the answer of ${target.origin} failed (${(error as Error).message})`);
  }
  const body = NULL_BODY_STATUSES.has(res.status) ? null : Buffer.concat(chunks);
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** A GET whose redirect is an error (a configured URL is the whole trust decision), body as bytes. */
export async function fetchLimited(url: string, limits: OutboundLimits, init: { headers?: Record<string, string> } = {}): Promise<{ status: number; body: Buffer; contentType: string }> {
  const res = await fetchCapped(url, limits, { headers: init.headers });
  if (res.status >= 300 && res.status < 400) {
    throw new OutboundError(`${url} answered with a redirect (${res.status}), which is not followed: configure the final address`);
  }
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type') ?? '' };
}
