/**
 * Long ingest loops give the event loop a turn every so often, so that health checks and reads
 * are answered while a 5,000-item document is parsed, classified and written (one process
 * serves both). A turn costs microseconds; 100 items of bounded text take a few milliseconds.
 */
const ITEMS_PER_TURN = 100;

/** Waits for one full turn of the event loop, through its I/O phase. */
export const nextTurn = (): Promise<void> =>
  new Promise<void>((resolve) =>
    typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0),
  );

/** A counter that gives the event loop a turn on every `every`th call. */
export function turnEvery(every = ITEMS_PER_TURN): () => Promise<void> {
  let calls = 0;
  return async () => {
    calls += 1;
    if (calls % every === 0) await nextTurn();
  };
}
