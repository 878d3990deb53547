import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client';
import { ingestSignals } from '../../src/ingest/pipeline';
import { memoryStore } from '../../src/store/memory';
import type { Store } from '../../src/store/types';
import { fixtureItems } from '../support/fixture';
import { backends, memoryLogger, startTestApp, type TestApp } from '../support/harness';

/** A store that stops answering while `hanging`, counting the calls that reached it then. */
function hangableStore() {
  const inner = memoryStore();
  const state = { hanging: false, reached: 0 };
  const never = () => {
    state.reached += 1;
    return new Promise<never>(() => {});
  };
  const store: Store = {
    kind: inner.kind,
    admit: (hits, flag) => (state.hanging ? never() : inner.admit(hits, flag)),
    limit: (rule, id) => (state.hanging ? never() : inner.limit(rule, id)),
    peek: (rule, id) => (state.hanging ? never() : inner.peek(rule, id)),
    get: (key) => (state.hanging ? never() : inner.get(key)),
    set: (key, value, ttl) => (state.hanging ? never() : inner.set(key, value, ttl)),
    delete: (key) => (state.hanging ? never() : inner.delete(key)),
    ping: () => (state.hanging ? never() : inner.ping()),
  };
  return { store, state };
}

// A cached public read makes up to four store calls (limit, cache read, cache lock, cache
// write); in a store that hangs, each used to wait its own one-second deadline.
describe('a request in a store outage', () => {
  let database: DatabaseHandle;
  let app: TestApp;
  const { store, state } = hangableStore();

  beforeAll(async () => {
    database = await backends[0]!.open();
    await ingestSignals(database.db, fixtureItems());
    app = await startTestApp(database.db, { store, deps: { log: memoryLogger() } });
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('waits for the store once: after one call times out, its other calls are not made', async () => {
    state.hanging = true;
    try {
      const res = await app.fetch('/api/v1/stats');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-cache')).toBe('MISS');
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
      expect(state.reached).toBe(1);
    } finally {
      state.hanging = false;
    }
  });

  it('tries the store afresh on the next request, which counts and caches again', async () => {
    const first = await app.fetch('/api/v1/stats');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-tier')).toBe('public');
    const second = await app.fetch('/api/v1/stats');
    expect(second.headers.get('x-cache')).toBe('HIT');
  });
});
