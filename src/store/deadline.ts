import { storeView, type Store } from './types';

/** Turns of the event loop granted after the deadline before giving up (see withDeadline). */
const GRACE_TURNS = 3;

/** Waits for one full turn of the event loop, through its I/O phase. */
const nextTurn = () =>
  new Promise<void>((resolve) =>
    typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0),
  );

/**
 * Resolves like `promise`, or rejects once `ms` have passed; a late rejection is swallowed.
 * When the timer fires, a few more event-loop turns are granted first: timers run before I/O
 * callbacks, so after a stall of our own process (a busy embedded database, a GC pause) an
 * answer that has already arrived would otherwise lose to the timer and the request would
 * fail open for no fault of the store.
 */
export async function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  promise.catch(() => {});
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          void (async () => {
            for (let i = 0; i < GRACE_TURNS; i++) await nextTurn();
            reject(new Error(`store did not answer within ${ms} ms`));
          })();
        }, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long a request waits for the store before it fails open (1 s, then the request is served without limits). */
export const STORE_TIMEOUT_MS = 1000;

/**
 * `store` as one request sees it: each call answers within `ms`, and once a call has failed or
 * run out of time, the request's later calls fail at once without reaching the store. A request
 * that makes several store calls (limits, cache read, cache lock, cache write) thus waits at
 * most one deadline in a store outage, not one per call; the next request tries the store
 * afresh, so service resumes the moment the store is back. `around` wraps each call as the
 * request sees it (the request's timing), so one view serves both.
 */
export function requestStore(
  store: Store,
  ms = STORE_TIMEOUT_MS,
  around: (call: Promise<unknown>) => Promise<unknown> = (call) => call,
): Store {
  let failure: Error | undefined;
  return storeView(store, (call) => {
    if (failure !== undefined) return Promise.reject(failure);
    return around(
      withDeadline(call() as Promise<unknown>, ms).catch((error: unknown) => {
        failure = error instanceof Error ? error : new Error('store call failed', { cause: error });
        throw error;
      }),
    );
  });
}
