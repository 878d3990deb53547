/** A Server-Sent Events client for tests: reads a live response and parses its events. */

export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

export interface SseReader {
  response: Response;
  /** Every event parsed so far (comments apart). */
  events: SseEvent[];
  /** Comment lines (`: heartbeat`) seen so far. */
  comments: string[];
  /** `retry:` hints seen so far. */
  retries: number[];
  /** Resolves once `count` events have arrived (or the stream ended); rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<SseEvent[]>;
  /** Resolves once the stream has ended (the server closed it). */
  ended: Promise<void>;
  close(): void;
}

/** Parses the events of an SSE response as they arrive (see the WHATWG event stream format). */
export function readSse(response: Response, abort?: AbortController): SseReader {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const retries: number[] = [];
  const waiters: (() => void)[] = [];
  const notify = () => waiters.splice(0).forEach((wake) => wake());
  let done = false;
  const ended = (async () => {
    if (!response.body) return;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done: finished } = await reader.read();
        if (finished) break;
        buffer += value;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event: SseEvent = { event: 'message', data: '' };
          let hasData = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('retry: ')) retries.push(Number(line.slice(7)));
            else if (line.startsWith('id: ')) event.id = line.slice(4);
            else if (line.startsWith('event: ')) event.event = line.slice(7);
            else if (line.startsWith('data: ')) {
              event.data += (hasData ? '\n' : '') + line.slice(6);
              hasData = true;
            }
          }
          if (hasData) events.push(event);
          notify();
        }
      }
    } catch {
      // Aborted by the test: the events read so far stay.
    } finally {
      done = true;
      notify();
    }
  })();
  return {
    response,
    events,
    comments,
    retries,
    ended,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length < count && !done) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`waited for ${count} events, got ${events.length}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return events.slice(0, count);
    },
    close: () => abort?.abort(),
  };
}

/** Opens `url` as an event stream; the reader's `close()` drops the connection. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const abort = new AbortController();
  const response = await fetch(url, {
    headers: { Accept: 'text/event-stream', ...headers },
    signal: abort.signal,
  });
  return readSse(response, abort);
}
