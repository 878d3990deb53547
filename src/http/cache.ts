import type { Context } from 'hono';
import type { AppEnv } from '../deps';
import { STORE_TIMEOUT_MS, withDeadline } from '../store/deadline';
import { rootStore, type Store } from '../store/types';

/** Store lifetimes of the cached endpoints, in seconds (spec, "Limits"). */
export const CACHE_TTL = {
  trending: 600,
  compoundCrises: 300,
  brief: 900,
  stats: 600,
  clusters: 300,
  /** Short: freshness is what monitoring polls; its counts are cheap to read again. */
  freshness: 30,
} as const;

interface Entry<T> {
  value: T;
  /** Epoch ms at which the value was computed. */
  at: number;
}

/**
 * Misses being computed in this isolate/process, per store, so concurrent callers share one
 * computation. Module-level on purpose: it only ever holds promises still running.
 */
const inFlightByStore = new WeakMap<Store, Map<string, Promise<Entry<unknown>>>>();

const LOCK_SECONDS = 30;
const WAIT_STEP_MS = 100;

export interface CacheOptions {
  /** The clock for the entry's age (epoch ms). */
  now?: () => number;
  /** How long a process without the lock waits for the holder's value before computing itself. */
  waitMs?: number;
  /** Told when the store fails or is slower than its deadline (the value is computed instead). */
  onStoreError?: (error: unknown) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Marks a store call that failed or timed out. */
const UNAVAILABLE = Symbol('store unavailable');

/**
 * Reads `key` from the store or computes it once. Within a process, concurrent misses share a
 * promise; across processes, a one-hit limiter bucket acts as a short lock so only its holder
 * computes while the others poll the store for a while before computing themselves.
 */
export async function cachedValue<T>(
  store: Store,
  key: string,
  ttlSeconds: number,
  compute: () => Promise<T>,
  { now = Date.now, waitMs = 4000, onStoreError = () => {} }: CacheOptions = {},
): Promise<{ value: T; at: number; hit: boolean }> {
  // A store failure must never fail the read, nor hold it past the store's deadline: the value
  // is computed instead (fail open).
  const safely = async <R>(work: () => Promise<R>): Promise<R | typeof UNAVAILABLE> => {
    try {
      return await withDeadline(work(), STORE_TIMEOUT_MS);
    } catch (error) {
      onStoreError(error);
      return UNAVAILABLE;
    }
  };
  const cacheKey = `cache:${key}`;
  const hit = await safely(() => store.get<Entry<T>>(cacheKey));
  if (hit !== UNAVAILABLE && hit) return { ...hit, hit: true };

  // Keyed by the shared store, not a request's timed view of it, so concurrent requests share.
  let inFlight = inFlightByStore.get(rootStore(store));
  if (!inFlight)
    inFlightByStore.set(rootStore(store), (inFlight = new Map<string, Promise<Entry<unknown>>>()));
  let pending = inFlight.get(cacheKey) as Promise<Entry<T>> | undefined;
  if (pending) return { ...(await pending), hit: false };

  pending = (async () => {
    // With the store down there is no lock to take and nowhere to keep the value.
    if (hit === UNAVAILABLE) return { value: await compute(), at: now() };
    const lock = await safely(() =>
      store.limit({ name: 'cache-lock', limit: 1, windowSeconds: LOCK_SECONDS }, cacheKey),
    );
    if (lock !== UNAVAILABLE && !lock.success) {
      for (let waited = 0; waited < waitMs; waited += WAIT_STEP_MS) {
        await sleep(WAIT_STEP_MS);
        const ready = await safely(() => store.get<Entry<T>>(cacheKey));
        if (ready === UNAVAILABLE) break;
        if (ready) return ready;
      }
    }
    const entry: Entry<T> = { value: await compute(), at: now() };
    await safely(() => store.set(cacheKey, entry, ttlSeconds));
    return entry;
  })();
  inFlight.set(cacheKey, pending);
  try {
    return { ...(await pending), hit: false };
  } finally {
    inFlight.delete(cacheKey);
  }
}

/**
 * Serves a cached endpoint: the value from the store (or computed once), with a
 * `Cache-Control` whose `max-age` is the lifetime left, so no client or edge keeps it longer
 * than the store does. Keyed endpoints are `private` so a shared cache never skips the key check.
 */
export async function cached<T>(
  c: Context<AppEnv>,
  key: string,
  ttlSeconds: number,
  compute: () => Promise<T>,
  visibility: 'public' | 'private',
  waitMs?: number,
): Promise<T> {
  const { deps } = c.env;
  const clock = () => deps.now().getTime();
  const result = await cachedValue(deps.store, key, ttlSeconds, compute, {
    now: clock,
    waitMs,
    onStoreError: (error) =>
      deps.log.warn('store unavailable; computing uncached', { key, error: String(error) }),
  });
  const age = Math.max(0, Math.floor((clock() - result.at) / 1000));
  const maxAge = Math.max(0, ttlSeconds - age);
  c.header('Cache-Control', `${visibility}, max-age=${maxAge}`);
  c.header('Age', String(Math.min(age, ttlSeconds)));
  c.header('X-Cache', result.hit ? 'HIT' : 'MISS');
  return result.value;
}
