/**
 * `client.stream()`: the live stream (`GET /api/v1/stream`) as an async iterator that resumes by
 * itself. Each event's id is a sync cursor; after a dropped connection or the server's `end`
 * event the iterator reconnects with the last one (`Last-Event-ID`) after the `retry:` hint, so
 * the caller sees every change once, in order, with no gap.
 *
 * @example
 * for await (const change of api.stream({ layers: 'cyber', min_score: 7 })) {
 *   if (change.event === 'retraction') remove(change.data.id);
 *   else upsert(change.data);
 * }
 */
import type { components, paths } from './schema.js';

export type StreamQuery = Omit<
  NonNullable<paths['/api/v1/stream']['get']['parameters']['query']>,
  'cursor' | 'api_key'
>;

/** A change the stream delivers: a new signal, an update or a retraction, with its cursor. */
export type StreamChange =
  | components['schemas']['StreamSignalEvent']
  | components['schemas']['StreamUpdateEvent']
  | components['schemas']['StreamRetractionEvent'];

export interface StreamOptions {
  /** Resume after this cursor (a change's `id`); without it the stream starts with what is new. */
  cursor?: string;
  /** Stops the iterator (and its connection). */
  signal?: AbortSignal;
}

/** What the stream needs from the client's options. */
export interface StreamConnection {
  baseUrl: string;
  apiKey?: string | undefined;
  fetch?: typeof fetch | undefined;
  sleep?: ((ms: number) => Promise<void>) | undefined;
}

/** Thrown when the stream cannot go on: a 4xx other than 429 (the problem is in `problem`). */
export class StreamProblemError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Partial<components['schemas']['Problem']>,
  ) {
    super(`${status} ${problem.code ?? 'error'}: ${problem.detail ?? problem.title ?? ''}`);
    this.name = 'StreamProblemError';
  }
}

interface RawEvent {
  id?: string;
  event: string;
  data: string;
  retry?: number;
}

/** The events of an SSE body as they arrive (the WHATWG event stream format). */
export async function* readEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<RawEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event: RawEvent = { event: 'message', data: '' };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          const colon = line.indexOf(':');
          if (colon === 0) continue;
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'data') data.push(value);
          else if (field === 'id') event.id = value;
          else if (field === 'event') event.event = value;
          else if (field === 'retry' && /^\d+$/.test(value)) event.retry = Number(value);
        }
        event.data = data.join('\n');
        if (data.length > 0 || event.retry !== undefined) yield event;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/** Longest wait between two reconnections, whatever the server hints. */
const MAX_WAIT_MS = 60_000;

/** The live stream, resumed across connections; see the module's comment. */
export async function* streamChanges(
  connection: StreamConnection,
  query: StreamQuery = {},
  options: StreamOptions = {},
): AsyncGenerator<StreamChange> {
  const send = connection.fetch ?? globalThis.fetch;
  const sleep = connection.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const params = new URLSearchParams(
    Object.entries(query)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, String(value)]),
  );
  const url = `${connection.baseUrl.replace(/\/+$/, '')}/api/v1/stream?${params}`;
  let cursor = options.cursor;
  let wait = 3_000;
  let failures = 0;
  while (!options.signal?.aborted) {
    let response: Response;
    try {
      response = await send(url, {
        headers: {
          Accept: 'text/event-stream',
          ...(connection.apiKey ? { 'X-Api-Key': connection.apiKey } : {}),
          ...(cursor ? { 'Last-Event-ID': cursor } : {}),
        },
        signal: options.signal ?? null,
      });
    } catch (error) {
      if (options.signal?.aborted) return;
      failures += 1;
      await sleep(Math.min(MAX_WAIT_MS, wait * 2 ** Math.min(failures, 5)));
      void error;
      continue;
    }
    if (response.status === 429 || response.status >= 500) {
      const after = Number(response.headers.get('retry-after'));
      await response.body?.cancel();
      failures += 1;
      await sleep(
        Math.min(MAX_WAIT_MS, Number.isFinite(after) && after > 0 ? after * 1000 : wait * 2 ** failures),
      );
      continue;
    }
    if (response.status !== 200 || !response.body) {
      const problem = (await response.json().catch(() => ({}))) as StreamProblemError['problem'];
      throw new StreamProblemError(response.status, problem);
    }
    failures = 0;
    try {
      for await (const event of readEventStream(response.body)) {
        if (event.retry !== undefined) wait = event.retry;
        if (event.event === 'end') {
          const end = JSON.parse(event.data) as components['schemas']['StreamEnd'];
          cursor = end.cursor;
          if (end.reason === 'key_revoked') {
            throw new StreamProblemError(401, {
              code: 'invalid_api_key',
              detail: 'The API key was revoked.',
            });
          }
          continue;
        }
        if (event.event !== 'signal' && event.event !== 'update' && event.event !== 'retraction') continue;
        cursor = event.id ?? cursor;
        yield {
          id: event.id!,
          event: event.event,
          data: JSON.parse(event.data) as StreamChange['data'],
        };
      }
    } catch (error) {
      if (error instanceof StreamProblemError) throw error;
      if (options.signal?.aborted) return;
      // A dropped connection: reconnect with the last cursor.
    }
    if (!options.signal?.aborted) await sleep(Math.min(MAX_WAIT_MS, wait));
  }
}
