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

export async function fetchLimited(url: string, limits: OutboundLimits, init: { headers?: Record<string, string> } = {}): Promise<{ status: number; body: Buffer; contentType: string }> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new OutboundError(`${url} is not a URL`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new OutboundError(`${url} is not an http(s) URL`);
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let res: Response;
  try {
    res = await fetch(target, { headers: init.headers, redirect: 'manual', signal });
  } catch (error) {
    if (signal.aborted) throw new OutboundError(`${target.origin} did not answer within ${limits.timeoutMs / 1000} s`);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new OutboundError(`${target.origin} could not be reached (${cause?.code ?? cause?.message ?? (error as Error).message})`);
  }
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel();
    throw new OutboundError(`${url} answered with a redirect (${res.status}), which is not followed: configure the final address`);
  }
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > limits.maxBytes) {
    await res.body?.cancel();
    throw new OutboundError(`${url} answered with more than ${limits.maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body ?? []) {
      size += chunk.byteLength;
      if (size > limits.maxBytes) {
        await res.body?.cancel().catch(() => undefined);
        throw new OutboundError(`${url} answered with more than ${limits.maxBytes} bytes`);
      }
      chunks.push(Buffer.from(chunk));
    }
  } catch (error) {
    if (error instanceof OutboundError) throw error;
    if (signal.aborted) throw new OutboundError(`${target.origin} did not finish its answer within ${limits.timeoutMs / 1000} s`);
    throw new OutboundError(`reading the answer of ${target.origin} failed (${(error as Error).message})`);
  }
  return { status: res.status, body: Buffer.concat(chunks), contentType: res.headers.get('content-type') ?? '' };
}
