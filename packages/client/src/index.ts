/**
 * A typed client for the Signal Intelligence API: `openapi-fetch` over types generated from
 * the OpenAPI document (`schema.d.ts`), plus what users of a data API otherwise write
 * themselves: walking every page, retrying on 429/503, and verifying webhook signatures.
 * Runs wherever `fetch` and WebCrypto do (Node 20+, browsers, Workers, Deno, Bun).
 *
 * @example
 * const api = createSignalClient({ baseUrl: 'https://api.example.org', apiKey: process.env.SIGNAL_API_KEY });
 * for await (const signal of api.signals({ layers: 'cyber', min_score: 7 })) console.log(signal.title);
 * // One signal per event, with how many independent publishers tell it:
 * for await (const s of api.signals({ distinct: 'event' })) console.log(s.corroboration, s.title);
 * // Live, resumed by itself after a dropped connection:
 * for await (const change of api.stream({ layers: 'cyber' })) console.log(change.event, change.data.title);
 */
import createClient, { type Client } from 'openapi-fetch';
// `.js`: the built package is plain ESM, which Node resolves only by the full file name.
import type { components, paths } from './schema.js';
import { streamChanges, type StreamChange, type StreamOptions, type StreamQuery } from './stream.js';

export type { components, paths };
export { StreamProblemError, type StreamChange, type StreamOptions, type StreamQuery } from './stream.js';
export type Signal = components['schemas']['Signal'];
export type Problem = components['schemas']['Problem'];
export type SignalQuery = NonNullable<paths['/api/v1/signals']['get']['parameters']['query']>;
export type Event = components['schemas']['Event'];

/** Every option may be `undefined` too, so `process.env.…` passes as it is under `exactOptionalPropertyTypes`. */
export interface ClientOptions {
  /** Where the API is, e.g. `https://api.example.org` (no trailing `/api/v1`). */
  baseUrl: string;
  /** Sent as `X-Api-Key`; public endpoints work without it. */
  apiKey?: string | undefined;
  /** How often a 429 or 503 is retried before its answer is returned (default 3). */
  retries?: number | undefined;
  /** The longest single wait, in seconds, whatever `Retry-After` says (default 60). */
  maxRetryAfterSeconds?: number | undefined;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch | undefined;
  /** How to wait; injectable for tests. */
  sleep?: ((ms: number) => Promise<void>) | undefined;
}

/** An error answer of the API (problem+json), thrown by the iterating helpers. */
export class ApiProblemError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Partial<Problem>,
  ) {
    super(`${status} ${problem.code ?? 'error'}: ${problem.detail ?? problem.title ?? ''}`);
    this.name = 'ApiProblemError';
  }
}

const RETRIED = new Set([429, 503]);

/** Seconds to wait from a `Retry-After` header (delta seconds or an HTTP date), else a backoff. */
export function retryAfterSeconds(header: string | null, attempt: number, now = Date.now()): number {
  if (header && /^\d+$/.test(header.trim())) return Number(header.trim());
  const date = header ? Date.parse(header) : NaN;
  if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - now) / 1000));
  return 2 ** attempt;
}

/**
 * `fetch` that retries a 429 or 503 after the `Retry-After` the API sends (capped), up to
 * `retries` times, then returns the last answer as it is.
 */
export function retryingFetch(
  options: Pick<ClientOptions, 'retries' | 'maxRetryAfterSeconds' | 'fetch' | 'sleep'> = {},
) {
  const send = options.fetch ?? globalThis.fetch;
  const retries = options.retries ?? 3;
  const cap = options.maxRetryAfterSeconds ?? 60;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  return async (input: Request): Promise<Response> => {
    for (let attempt = 0; ; attempt += 1) {
      const response = await send(input.clone() as unknown as Request);
      if (!RETRIED.has(response.status) || attempt >= retries) return response;
      const wait = Math.min(cap, retryAfterSeconds(response.headers.get('retry-after'), attempt));
      await response.body?.cancel();
      await sleep(wait * 1000);
    }
  };
}

export type SignalClient = Client<paths> & {
  /** Every signal matching `query`, page after page by cursor; throws `ApiProblemError`. */
  signals(query?: Omit<SignalQuery, 'cursor' | 'offset' | 'format'>): AsyncGenerator<Signal>;
  /**
   * Every signal of event `id`, strongest first, page after page by cursor (a merged event's
   * id is followed to the surviving event); throws `ApiProblemError`.
   */
  eventSignals(id: string): AsyncGenerator<Signal>;
  /**
   * The live stream: every change matching `query` as it commits, resumed by itself after a
   * dropped connection or the server's end of stream (src/client/stream.ts).
   */
  stream(query?: StreamQuery, options?: StreamOptions): AsyncGenerator<StreamChange>;
};

/** The typed client. `GET`, `POST`… take the paths and parameters of the OpenAPI document. */
export function createSignalClient(options: ClientOptions): SignalClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: retryingFetch(options),
    headers: options.apiKey ? { 'X-Api-Key': options.apiKey } : {},
  });
  async function* signals(query: Omit<SignalQuery, 'cursor' | 'offset' | 'format'> = {}) {
    let cursor: string | undefined;
    do {
      const { data, error, response } = await client.GET('/api/v1/signals', {
        params: { query: { ...query, ...(cursor ? { cursor } : {}) } },
      });
      if (!data || typeof data === 'string' || !('data' in data)) {
        throw new ApiProblemError(response.status, error ?? {});
      }
      yield* data.data;
      cursor = data.pagination.next_cursor ?? undefined;
    } while (cursor);
  }
  async function* eventSignals(id: string) {
    let cursor: string | undefined;
    do {
      const { data, error, response } = await client.GET('/api/v1/events/{id}', {
        params: { path: { id }, query: { limit: 100, ...(cursor ? { cursor } : {}) } },
      });
      if (!data) throw new ApiProblemError(response.status, error ?? {});
      // A merged id was redirected: later pages belong to the surviving event.
      id = data.id;
      yield* data.members.data;
      cursor = data.members.pagination.next_cursor ?? undefined;
    } while (cursor);
  }
  const stream = (query?: StreamQuery, streamOptions?: StreamOptions) =>
    streamChanges(options, query, streamOptions);
  return Object.assign(client, { signals, eventSignals, stream });
}

const encoder = new TextEncoder();

async function hmac(secret: string, message: string): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(message)));
}

/** Compares without an early exit, so timing does not tell how much of a signature matched. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i += 1) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

export interface VerifyOptions {
  /** Oldest and newest `webhook-timestamp` accepted, in seconds from now (default 300). */
  toleranceSeconds?: number | undefined;
  /** The clock, in milliseconds; injectable for tests. */
  now?: number | undefined;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;
const headerOf = (headers: HeaderSource, name: string): string | undefined => {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Whether a webhook delivery is authentic: `rawBody` exactly as received (not re-serialised)
 * and its headers, checked against the webhook's secret. Both signatures the API sends must
 * hold: `X-Service-Signature-256` (HMAC-SHA256 of the body, hex) and the Standard Webhooks
 * `webhook-signature` over `id.timestamp.body`, whose timestamp must be recent, so a
 * captured delivery cannot be replayed later.
 */
export async function verifyWebhook(
  rawBody: string,
  headers: HeaderSource,
  secret: string,
  options: VerifyOptions = {},
): Promise<boolean> {
  const bodySignature = headerOf(headers, 'x-service-signature-256');
  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const signatures = headerOf(headers, 'webhook-signature');
  if (!bodySignature?.startsWith('sha256=') || !id || !timestamp || !signatures) return false;
  const seconds = Number(timestamp);
  const tolerance = options.toleranceSeconds ?? 300;
  const now = (options.now ?? Date.now()) / 1000;
  if (!/^\d+$/.test(timestamp) || Math.abs(now - seconds) > tolerance) return false;

  const expectedBody = encoder.encode(hex(await hmac(secret, rawBody)));
  if (!sameBytes(encoder.encode(bodySignature.slice('sha256='.length).toLowerCase()), expectedBody))
    return false;

  const expected = encoder.encode(base64(await hmac(secret, `${id}.${timestamp}.${rawBody}`)));
  return signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .some((entry) => sameBytes(encoder.encode(entry.slice(3)), expected));
}
