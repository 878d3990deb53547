import { failureKind, type OutboundFetch } from '../net/outbound';
import { bodySignature, standardSignature } from './crypto';
import { urlProblem } from './guard';

const DELIVERY_TIMEOUT_MS = 10_000;
/** How much of a receiver's answer is read before the connection is dropped. */
const RESPONSE_CAP_BYTES = 64 * 1024;
const USER_AGENT = 'SignalIntel-Webhooks/1';

export interface Delivery {
  url: string;
  deliveryId: string;
  /** The exact JSON body (what is signed is what is sent). */
  body: string;
  secret: string | null;
}

/**
 * What the log and `/test` say about a failure: one of these or `http_<status>`, never the raw
 * error (which would tell a caller what listens behind an address).
 */
type DeliveryError =
  | 'dns_failed'
  | 'connect_failed'
  | 'tls_failed'
  | 'timeout'
  | 'blocked_address'
  | 'secret_unavailable'
  | `http_${number}`;

export interface AttemptResult {
  ok: boolean;
  status: number | null;
  durationMs: number;
  error: DeliveryError | null;
}

export interface SendOptions {
  fetch: OutboundFetch;
  allowInsecure: boolean;
  /** WEBHOOK_ALLOWED_PORTS: ports besides 443 a webhook URL may use. */
  allowedPorts?: readonly number[];
  timeoutMs?: number;
  /** Unix seconds for `webhook-timestamp`. */
  timestamp: number;
}

/** The delivery's headers: always the delivery id, plus both signatures when there is a secret. */
async function deliveryHeaders(delivery: Delivery, timestamp: number): Promise<Record<string, string>> {
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
 * a failure, `http_3xx`) and the URL policy runs again here, since settings may have changed;
 * the outbound fetch checks the address it connects to.
 */
export async function sendDelivery(delivery: Delivery, options: SendOptions): Promise<AttemptResult> {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  if (urlProblem(delivery.url, options.allowInsecure, options.allowedPorts)) {
    return { ok: false, status: null, durationMs: 0, error: 'blocked_address' };
  }
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  try {
    const response = await options.fetch(delivery.url, {
      method: 'POST',
      headers: await deliveryHeaders(delivery, options.timestamp),
      body: delivery.body,
      redirect: 'manual',
      timeoutMs,
      maxBodyBytes: RESPONSE_CAP_BYTES,
      // Also honoured by a plain `fetch`, which knows nothing of `timeoutMs`.
      signal: AbortSignal.timeout(timeoutMs),
    });
    // The receiver's body is never needed; release the connection.
    await response.body?.cancel().catch(() => undefined);
    const status = response.status;
    if (status >= 200 && status < 300) return { ok: true, status, durationMs: elapsed(), error: null };
    return { ok: false, status: status || null, durationMs: elapsed(), error: `http_${status}` };
  } catch (caught) {
    return { ok: false, status: null, durationMs: elapsed(), error: failureKind(caught) };
  }
}
