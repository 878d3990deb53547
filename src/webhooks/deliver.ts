import { bodySignature, standardSignature } from './crypto';
import { urlProblem } from './guard';

export const DELIVERY_TIMEOUT_MS = 10_000;
export const USER_AGENT = 'SignalIntel-Webhooks/1';

export interface Delivery {
  url: string;
  deliveryId: string;
  /** The exact JSON body (what is signed is what is sent). */
  body: string;
  secret: string | null;
}

export interface AttemptResult {
  ok: boolean;
  status: number | null;
  durationMs: number;
  error: string | null;
}

export interface SendOptions {
  fetch: typeof fetch;
  allowInsecure: boolean;
  timeoutMs?: number;
  /** Unix seconds for `webhook-timestamp`. */
  timestamp: number;
}

/** The delivery's headers: always the delivery id, plus both signatures when there is a secret. */
export async function deliveryHeaders(
  delivery: Delivery,
  timestamp: number,
): Promise<Record<string, string>> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'X-Service-Delivery': delivery.deliveryId,
  };
  if (delivery.secret) {
    headers['X-Service-Signature-256'] = await bodySignature(delivery.secret, delivery.body);
    headers['webhook-id'] = delivery.deliveryId;
    headers['webhook-timestamp'] = String(timestamp);
    headers['webhook-signature'] = await standardSignature(
      delivery.secret,
      delivery.deliveryId,
      timestamp,
      delivery.body,
    );
  }
  return headers;
}

/**
 * POSTs one delivery. Success is a 2xx within the timeout; redirects are not followed (a 3xx is
 * a failure) and the address guard runs again here, since DNS or settings may have changed.
 */
export async function sendDelivery(delivery: Delivery, options: SendOptions): Promise<AttemptResult> {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  const blocked = urlProblem(delivery.url, options.allowInsecure);
  if (blocked) return { ok: false, status: null, durationMs: 0, error: `url ${blocked}` };
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  try {
    const response = await options.fetch(delivery.url, {
      method: 'POST',
      headers: await deliveryHeaders(delivery, options.timestamp),
      body: delivery.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    // The receiver's body is never needed; release the connection.
    await response.body?.cancel().catch(() => undefined);
    const status = response.status;
    if (status >= 200 && status < 300) return { ok: true, status, durationMs: elapsed(), error: null };
    const error =
      status >= 300 && status < 400 ? `redirect (${status}) not followed` : `receiver answered ${status}`;
    return { ok: false, status: status || null, durationMs: elapsed(), error };
  } catch (caught) {
    const name = (caught as Error)?.name;
    const timedOut = name === 'TimeoutError' || name === 'AbortError';
    return {
      ok: false,
      status: null,
      durationMs: elapsed(),
      error: timedOut ? `no response within ${timeoutMs / 1000} s` : connectionError(caught),
    };
  }
}

/** A short, safe description of a network failure (no stack, no internals). */
function connectionError(caught: unknown): string {
  const cause = (caught as { cause?: { code?: string; message?: string } })?.cause;
  const detail = cause?.code ?? cause?.message ?? (caught as Error)?.message ?? 'unknown error';
  return `connection failed: ${String(detail).slice(0, 160)}`;
}
