import { randomUUID } from 'node:crypto';
import { memoryStore } from '../../src/store/memory';
import type { Store } from '../../src/store/types';
import { upstashStore } from '../../src/store/upstash';
import { testRedisUrl } from '../support/services';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge';

/** A store for one test, and the switch that takes it down and brings it back. */
export interface TestStore {
  store: Store;
  stop(): void;
  start(): void;
  /** Upstash only: the store holds requests without answering (slower than any deadline). */
  hang?(): void;
}

export interface StoreKind {
  name: 'memory' | 'upstash';
  /** A fresh, empty store (fresh buckets) for one test. */
  open(): Promise<TestStore>;
  close(): Promise<void>;
}

const failing = () => Promise.reject(new Error('store stopped'));

/** The memory store behind a switch: stopped, every call fails like an unreachable store. */
function switchable(store: Store): TestStore {
  let down = false;
  const guarded: Store = {
    kind: store.kind,
    admit: (hits, flag) => (down ? failing() : store.admit(hits, flag)),
    limit: (rule, id) => (down ? failing() : store.limit(rule, id)),
    peek: (rule, id) => (down ? failing() : store.peek(rule, id)),
    get: (key) => (down ? failing() : store.get(key)),
    set: (key, value, ttl) => (down ? failing() : store.set(key, value, ttl)),
    delete: (key) => (down ? failing() : store.delete(key)),
    ping: () => (down ? failing() : store.ping()),
  };
  return { store: guarded, stop: () => (down = true), start: () => (down = false) };
}

function upstashKind(): StoreKind {
  let bridge: Promise<UpstashBridge> | undefined;
  const kind: StoreKind = {
    name: 'upstash',
    async open() {
      bridge ??= startUpstashBridge();
      const b = await bridge;
      const store = upstashStore(
        { UPSTASH_REDIS_REST_URL: b.url, UPSTASH_REDIS_REST_TOKEN: b.token },
        { prefix: `test:${randomUUID()}` },
      );
      return { store, stop: () => b.pause('error'), start: () => b.resume(), hang: () => b.pause('hang') };
    },
    async close() {
      if (bridge) await (await bridge).close();
    },
  };
  return kind;
}

/** The memory store always; Upstash through the REST bridge when TEST_REDIS_URL is set. */
export const storeKinds = (): StoreKind[] => [
  { name: 'memory', open: async () => switchable(memoryStore()), close: async () => {} },
  ...(testRedisUrl() ? [upstashKind()] : []),
];

/**
 * Waits, when a fixed window of `windowSeconds` ends within `needMs`, until just after it has
 * ended. The sliding window weighs the previous window by its overlap (rounded down), so a test
 * that exhausts a limit across a window edge would see a call or two freed; the Upstash limiter
 * reads the real clock, so such tests start clear of an edge instead of moving time.
 */
export async function clearOfWindowEdge(windowSeconds: number, needMs = 10_000): Promise<void> {
  const windowMs = windowSeconds * 1000;
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 500));
}
