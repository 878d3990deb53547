import { isIpLiteral, isPublicAddress } from './address';

/**
 * The one way the service makes outbound HTTP requests (webhook deliveries and test pings, the
 * brief's LLM call, source polling). Same call shape as `fetch`, plus a timeout and a cap on the
 * response body; redirects are never followed (a 3xx is answered as is). Each runtime provides
 * an implementation: `nodeOutboundFetch` (src/net/outbound-node.ts) checks every DNS answer at
 * connect time; `workerOutboundFetch` here relies on the platform (see docs/security.md).
 */
interface OutboundInit extends RequestInit {
  /** Abort after this long, connect to last body byte (default 10 s). */
  timeoutMs?: number;
  /** Keep at most this many bytes of the response body; the rest is dropped unread. */
  maxBodyBytes?: number;
}

export type OutboundFetch = (input: string | URL, init?: OutboundInit) => Promise<Response>;

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Set on a response whose body was cut at `maxBodyBytes`. */
export const TRUNCATED_HEADER = 'x-outbound-truncated';

/**
 * Why a request failed, in words safe to show a caller: never the raw error, which would turn
 * the service into an oracle for what lies behind an address (open ports, internal names).
 */
export type FailureKind = 'dns_failed' | 'connect_failed' | 'tls_failed' | 'timeout' | 'blocked_address';

/** An outbound failure already classified; its message is the kind and nothing more. */
export class OutboundError extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly detail?: string,
  ) {
    super(kind);
    this.name = 'OutboundError';
  }
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA', 'ENODATA']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT']);
const TLS_CODE =
  /^(ERR_SSL_|ERR_TLS_|CERT_|EPROTO$|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_)/;

/** Classifies anything an outbound request threw (ours, undici's, or a Worker's fetch). */
export function failureKind(error: unknown): FailureKind {
  for (
    let e = error as { name?: unknown; code?: unknown; cause?: unknown; kind?: unknown } | undefined,
      depth = 0;
    e && depth < 5;
    depth++
  ) {
    if (e instanceof OutboundError) return e.kind;
    if (e.name === 'TimeoutError') return 'timeout';
    const code = typeof e.code === 'string' ? e.code : '';
    if (DNS_CODES.has(code)) return 'dns_failed';
    if (TIMEOUT_CODES.has(code)) return 'timeout';
    if (TLS_CODE.test(code)) return 'tls_failed';
    e = e.cause as typeof e;
  }
  if ((error as { name?: unknown })?.name === 'AbortError') return 'timeout';
  return 'connect_failed';
}

/** Reads at most `max` bytes of `response`'s body, then cancels the rest. */
async function readCapped(
  response: Response,
  max: number,
): Promise<{ bytes: Uint8Array<ArrayBuffer>; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  const reader = response.body?.getReader();
  if (!reader) return { bytes: new Uint8Array(0), truncated };
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = max - size;
    chunks.push(value.byteLength > room ? value.subarray(0, room) : value);
    size += Math.min(value.byteLength, room);
    if (value.byteLength > room) {
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { bytes, truncated };
}

/** Statuses whose responses may not carry a body (the Response constructor refuses one). */
export const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** Combines the caller's signal with the timeout, failing with an `OutboundError('timeout')`. */
function timeoutSignal(timeoutMs: number, signal?: AbortSignal | null): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

/**
 * The Workers implementation: the platform's fetch, which cannot reach private or loopback
 * addresses of Cloudflare's edge, behind the literal-address check (the only DNS check a Worker
 * can make before connecting). `allowPrivate` (WEBHOOK_ALLOW_INSECURE) lifts the check.
 */
export function workerOutboundFetch(
  options: { allowPrivate?: boolean; fetch?: typeof fetch } = {},
): OutboundFetch {
  const platformFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  return async (input, init = {}) => {
    const url = new URL(String(input));
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!options.allowPrivate && isIpLiteral(host) && !isPublicAddress(host)) {
      throw new OutboundError('blocked_address');
    }
    const { timeoutMs = DEFAULT_TIMEOUT_MS, maxBodyBytes = DEFAULT_MAX_BODY_BYTES, ...rest } = init;
    const signal = timeoutSignal(timeoutMs, init.signal);
    let response: Response;
    let body: { bytes: Uint8Array<ArrayBuffer>; truncated: boolean };
    try {
      response = await platformFetch(url, { ...rest, redirect: 'manual', signal });
      body = await readCapped(response, maxBodyBytes);
    } catch (error) {
      throw new OutboundError(signal.aborted ? 'timeout' : failureKind(error));
    }
    const headers = new Headers(response.headers);
    // The body handed on is already decoded and may be cut: its old framing no longer applies.
    headers.delete('content-encoding');
    headers.delete('content-length');
    if (body.truncated) headers.set(TRUNCATED_HEADER, '1');
    return new Response(NULL_BODY_STATUSES.has(response.status) ? null : body.bytes, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}
