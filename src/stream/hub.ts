import { and, inArray, isNotNull, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { apiKeys, signals } from '../db/schema';
import type { Logger } from '../log';
import { readChanges, settledKey, type Change, type SyncKey } from './changes';
import { matchesStream, type StreamFilter } from './filter';

/** Why a stream ended; sent in its last event with the cursor to resume from. */
export type EndReason = 'lifetime' | 'slow_reader' | 'key_revoked' | 'unavailable' | 'shutdown';

/** One open stream as the hub sees it: its filter, its key, and where its changes go. */
interface StreamSubscriber {
  filter: StreamFilter;
  keyId: string;
  /** Changes that pass `filter` (all but `distinct`), in sync order, after `Subscription.start`. */
  deliver(changes: Change[]): void;
  end(reason: EndReason): void;
}

interface Subscription {
  /** Where live delivery starts: every change after it is delivered, none before it. */
  start: SyncKey;
  close(): void;
}

/**
 * The fan-out port: committed changes to every open stream, read once per wake-up, never once
 * per stream. Adapters: `localHub` (Node: one per process, woken in-process and by
 * LISTEN/NOTIFY) and the Durable Object hub (Workers, src/stream/durable.ts).
 */
export interface StreamHub {
  /** Registers a stream; null when its key already holds `cap` open streams. */
  subscribe(subscriber: StreamSubscriber, cap: number): Promise<Subscription | null>;
  /** Something committed: read and fan out (a hint; the NOTIFY trigger wakes Node hubs anyway). */
  changed(): void;
  close(): Promise<void>;
}

/** Concurrent streams one key may hold, by tier (docs/stream.md). */
export const STREAM_CAPS = { free: 1, pro: 5 } as const;

/** Changes read per query by a hub; a wake-up reads as many pages as there are. */
export const HUB_PAGE = 500;

/** How soon a hub looks again when a change is visible but not yet settled (an open transaction). */
const UNSETTLED_RETRY_MS = 100;

export interface LocalHubOptions {
  db: Database;
  log: Logger;
  /** How often open streams' keys are checked for revocation. */
  keyCheckMs: number;
  /**
   * Starts listening for commits of other writers (LISTEN signal_changes); returns how to stop.
   * Started with the first stream, stopped with the last.
   */
  listen?: (onChange: () => void) => Promise<() => Promise<void>>;
}

/**
 * The in-process hub: one read of the changes since its position per wake-up, whatever the
 * number of streams, each change matched in memory against each stream's filter. It holds
 * nothing while no stream is open (no listener, no timer, no position).
 */
export function localHub(options: LocalHubOptions): StreamHub {
  const { db, log } = options;
  const subscribers = new Set<StreamSubscriber>();
  const perKey = new Map<string, number>();
  let position: SyncKey | undefined;
  let positioning: Promise<SyncKey> | undefined;
  let dirty = false;
  let pumping: Promise<void> | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let keyCheck: ReturnType<typeof setInterval> | undefined;
  let stopListening: Promise<() => Promise<void>> | undefined;

  function fanOut(changes: Change[]) {
    for (const subscriber of subscribers) {
      const matched = changes.filter((change) => matchesStream(subscriber.filter, change.signal));
      if (matched.length > 0) subscriber.deliver(matched);
    }
  }

  async function pump() {
    while (dirty && position && subscribers.size > 0) {
      dirty = false;
      let page: Change[];
      do {
        page = await readChanges(db, {}, position, HUB_PAGE);
        if (page.length === 0) break;
        position = page[page.length - 1]!.key;
        fanOut(page);
      } while (page.length === HUB_PAGE);
      // A change past the settled bound is held back until its neighbours commit: look again soon.
      const [unsettled] = await db
        .select({ id: signals.id })
        .from(signals)
        .where(
          sql`(${signals.updatedAt}, ${signals.id}) > (${position.updatedAt}::timestamptz, ${position.id}::uuid)`,
        )
        .limit(1);
      if (unsettled && !retry) {
        retry = setTimeout(() => {
          retry = undefined;
          wake();
        }, UNSETTLED_RETRY_MS);
        retry.unref?.();
      }
    }
  }

  function wake() {
    dirty = true;
    pumping ??= pump()
      .catch((error: unknown) => {
        log.warn('stream hub read failed', { error: String(error) });
        retry ??= setTimeout(() => {
          retry = undefined;
          wake();
        }, 1_000);
      })
      .finally(() => {
        pumping = undefined;
        if (dirty && subscribers.size > 0) wake();
      });
  }

  /** Ends the streams of keys revoked since they opened: one query for every open stream. */
  async function checkKeys() {
    const keyIds = [...perKey.keys()];
    if (keyIds.length === 0) return;
    const revoked = await db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(inArray(apiKeys.id, keyIds), isNotNull(apiKeys.revokedAt)));
    const gone = new Set(revoked.map((row) => row.id));
    for (const subscriber of [...subscribers]) if (gone.has(subscriber.keyId)) subscriber.end('key_revoked');
  }

  function startResources() {
    keyCheck = setInterval(() => {
      checkKeys().catch((error: unknown) => log.warn('stream key check failed', { error: String(error) }));
    }, options.keyCheckMs);
    keyCheck.unref?.();
    stopListening = options.listen?.(wake);
    stopListening?.catch((error: unknown) => log.error('stream listener failed', { error: String(error) }));
  }

  async function stopResources() {
    clearInterval(keyCheck);
    clearTimeout(retry);
    keyCheck = retry = undefined;
    position = positioning = undefined;
    const stopping = stopListening;
    stopListening = undefined;
    if (stopping) await (await stopping.catch(() => async () => {}))();
  }

  return {
    async subscribe(subscriber, cap) {
      const held = perKey.get(subscriber.keyId) ?? 0;
      if (held >= cap) return null;
      perKey.set(subscriber.keyId, held + 1);
      if (subscribers.size === 0) startResources();
      subscribers.add(subscriber);
      try {
        // Everything before the settled position is final; everything after it the hub reads.
        positioning ??= settledKey(db).then((key) => (position ??= key));
        await positioning;
      } catch (error) {
        positioning = undefined;
        release(subscriber);
        throw error;
      }
      const start = position!;
      return { start, close: () => release(subscriber) };
    },
    changed: wake,
    async close() {
      for (const subscriber of [...subscribers]) subscriber.end('shutdown');
      subscribers.clear();
      perKey.clear();
      await stopResources();
    },
  };

  function release(subscriber: StreamSubscriber) {
    if (!subscribers.delete(subscriber)) return;
    const left = (perKey.get(subscriber.keyId) ?? 1) - 1;
    if (left > 0) perKey.set(subscriber.keyId, left);
    else perKey.delete(subscriber.keyId);
    if (subscribers.size === 0) void stopResources();
  }
}
