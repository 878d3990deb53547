import type { Config } from '../config';
import type { Database } from '../db/client';
import type { Logger } from '../log';
import { distinctChanges, isAfter, readChanges, streamCursor, type Change, type SyncKey } from './changes';
import type { StreamFilter } from './filter';
import type { EndReason, StreamHub } from './hub';

type StreamConfig = Pick<
  Config,
  'STREAM_HEARTBEAT_MS' | 'STREAM_MAX_LIFETIME_MS' | 'STREAM_RETRY_MS' | 'STREAM_BUFFER_BYTES'
>;

export interface StreamRequest {
  db: Database;
  hub: StreamHub;
  filter: StreamFilter;
  keyId: string;
  /** Most streams the key may hold at once. */
  cap: number;
  /** Resume after this position (the last event the client received); live only without it. */
  after?: SyncKey;
  config: StreamConfig;
  log: Logger;
}

const encoder = new TextEncoder();

/** Changes read per query while catching up. */
const CATCH_UP_PAGE = 200;
/** Live batches that may wait behind a catch-up before the stream is cut off as too slow. */
const MAX_WAITING_BATCHES = 1_000;

/**
 * Each change's event text, written once however many streams send it: the hub hands every
 * stream the same change objects, so a WeakMap frees the text with the change.
 */
const frames = new WeakMap<Change, Uint8Array>();

/** One SSE event: its id is the sync cursor of the change, its data the signal's JSON. */
function frame(change: Change): Uint8Array {
  let bytes = frames.get(change);
  if (bytes === undefined) {
    bytes = encoder.encode(
      `id: ${streamCursor(change.key)}\nevent: ${change.kind}\ndata: ${JSON.stringify(change.signal)}\n\n`,
    );
    frames.set(change, bytes);
  }
  return bytes;
}

/**
 * Opens one live stream as SSE bytes: a `retry:` hint, then (with `after`) every change the
 * client missed, read through the sync path up to where the hub's live delivery starts, then the
 * live changes, with no gap and no repeat (each is sent only when it comes after the last one
 * sent). A heartbeat comment keeps it open; it ends with an `end` event carrying a resumable
 * cursor after its lifetime, when the client reads too slowly for its bounded buffer, when the
 * key is revoked or when the server shuts down. Null when the key already holds `cap` streams.
 */
export async function openStream(request: StreamRequest): Promise<ReadableStream<Uint8Array> | null> {
  const { db, filter, config, log } = request;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  let waiting = 0;
  let chain: Promise<void> = Promise.resolve();
  const timers: ReturnType<typeof setTimeout>[] = [];

  const subscription = await request.hub.subscribe(
    {
      filter,
      keyId: request.keyId,
      deliver(changes) {
        if (closed) return;
        if (++waiting > MAX_WAITING_BATCHES) return finish('slow_reader');
        queue(async () => {
          waiting -= 1;
          await send(changes);
        });
      },
      end: (reason) => finish(reason),
    },
    request.cap,
  );
  if (!subscription) return null;
  let last: SyncKey = request.after ?? subscription.start;

  /** Runs `task` after every earlier one, so events leave in sync order. */
  function queue(task: () => Promise<void>) {
    chain = chain.then(task).catch((error: unknown) => {
      log.warn('stream read failed', { error: String(error) });
      finish('unavailable');
    });
  }

  function cleanup() {
    closed = true;
    for (const timer of timers) clearTimeout(timer);
    subscription!.close();
  }

  function write(text: string | Uint8Array) {
    if (closed) return;
    controller.enqueue(typeof text === 'string' ? encoder.encode(text) : text);
    // The queue is bounded in bytes: a reader that lets it fill is cut off, never buffered for.
    if ((controller.desiredSize ?? 1) <= 0) finish('slow_reader');
  }

  function finish(reason: EndReason) {
    if (closed) return;
    const cursor = streamCursor(last);
    controller.enqueue(
      encoder.encode(`id: ${cursor}\nevent: end\ndata: ${JSON.stringify({ reason, cursor })}\n\n`),
    );
    cleanup();
    controller.close();
  }

  async function send(changes: Change[]) {
    const fresh = changes.filter((change) => isAfter(change.key, last));
    if (fresh.length === 0 || closed) return;
    const out = filter.distinct ? await distinctChanges(db, filter, fresh) : fresh;
    for (const change of out) {
      if (closed) return;
      // Moved first: a write that fills the buffer ends the stream, whose cursor must include it.
      last = change.key;
      write(frame(change));
    }
    if (!closed) last = fresh[fresh.length - 1]!.key;
  }

  async function catchUp() {
    let page: Change[];
    do {
      page = await readChanges(db, filter, last, CATCH_UP_PAGE, subscription!.start);
      await send(page);
    } while (page.length === CATCH_UP_PAGE && !closed && isAfter(subscription!.start, last));
  }

  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        write(`retry: ${config.STREAM_RETRY_MS}\n\n`);
        const beat = setInterval(() => write(': heartbeat\n\n'), config.STREAM_HEARTBEAT_MS);
        const lifetime = setTimeout(() => finish('lifetime'), config.STREAM_MAX_LIFETIME_MS);
        timers.push(beat, lifetime);
        // The catch-up heads the chain, so live batches wait behind it in order.
        if (request.after) queue(catchUp);
      },
      cancel: cleanup,
    },
    new ByteLengthQueuingStrategy({ highWaterMark: config.STREAM_BUFFER_BYTES }),
  );
  return stream;
}
