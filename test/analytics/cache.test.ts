import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { ingestSignals } from '../../src/ingest/pipeline';
import { fixtureItems } from '../support/fixture';
import { createKey, startTestApp, testPglite } from '../support/harness';
import { cachedValue } from '../../src/http/cache';
import { memoryStore } from '../../src/store/memory';
import type { Store } from '../../src/store/types';

const deferred = <T = void>() => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
};

describe('cachedValue', () => {
  it('computes once for concurrent misses in one process, then serves hits', async () => {
    const store = memoryStore();
    let calls = 0;
    const gate = deferred();
    const compute = async () => {
      calls += 1;
      await gate.promise;
      return { n: calls };
    };
    const racing = Array.from({ length: 20 }, () => cachedValue(store, 'k', 60, compute));
    gate.resolve();
    const results = await Promise.all(racing);
    expect(calls).toBe(1);
    expect(new Set(results.map((r) => JSON.stringify(r.value)))).toEqual(new Set(['{"n":1}']));
    const hit = await cachedValue(store, 'k', 60, compute);
    expect(hit).toMatchObject({ hit: true, value: { n: 1 } });
    expect(calls).toBe(1);
  });

  it('computes once across processes sharing a store: the lock holder computes, the other waits for its value', async () => {
    const shared = memoryStore();
    // Two "processes": distinct store objects (so distinct in-process single-flight) over one backing store.
    // Each tells when it is refused the lock: from then on that one waits for the holder's value.
    const refused = deferred();
    const telling: Store['limit'] = async (...args) => {
      const answer = await shared.limit(...args);
      if (!answer.success) refused.resolve();
      return answer;
    };
    const processA: Store = { ...shared, limit: telling };
    const processB: Store = { ...shared, limit: telling };
    let calls = 0;
    const gate = deferred();
    const compute = async () => {
      calls += 1;
      await gate.promise;
      return 'value';
    };
    const a = cachedValue(processA, 'shared', 60, compute);
    const b = cachedValue(processB, 'shared', 60, compute);
    // The holder computes until the gate opens; the other, refused, polls the store meanwhile.
    await refused.promise;
    gate.resolve();
    expect((await Promise.all([a, b])).map((r) => r.value)).toEqual(['value', 'value']);
    expect(calls).toBe(1);
  });

  it('expires with its lifetime', async () => {
    let now = 1_000_000;
    const store = memoryStore(() => now);
    let calls = 0;
    const compute = async () => ++calls;
    await cachedValue(store, 'ttl', 300, compute, { now: () => now });
    now += 299_000;
    expect((await cachedValue(store, 'ttl', 300, compute, { now: () => now })).value).toBe(1);
    now += 2_000;
    expect((await cachedValue(store, 'ttl', 300, compute, { now: () => now })).value).toBe(2);
  });

  it('fails open: a broken store never fails the read', async () => {
    const broken: Store = {
      kind: 'memory',
      admit: () => Promise.reject(new Error('down')),
      limit: () => Promise.reject(new Error('down')),
      peek: () => Promise.reject(new Error('down')),
      get: () => Promise.reject(new Error('down')),
      set: () => Promise.reject(new Error('down')),
      delete: () => Promise.reject(new Error('down')),
      ping: () => Promise.reject(new Error('down')),
    };
    expect(await cachedValue(broken, 'x', 60, async () => 42)).toMatchObject({ value: 42, hit: false });
  });
});

describe('cached endpoints over HTTP', () => {
  it('20 concurrent requests for a cold /api/v1/trending run its query once and agree', async () => {
    const database = await testPglite();
    try {
      await ingestSignals(database.db, fixtureItems());
      let trendingQueries = 0;
      // Counts the trending query as it reaches the database; everything else passes through.
      const counted = new Proxy(database.db, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver);
          if (prop !== 'execute') return typeof value === 'function' ? value.bind(target) : value;
          return (query: SQL) => {
            const text = new PgDialect().sqlToQuery(query).sql;
            if (!text.includes('primary_event_count > 0')) return value.call(target, query);
            trendingQueries += 1;
            // A slow query widens the window in which the other requests find the cache cold.
            return new Promise((resolve) => setTimeout(resolve, 300)).then(() => value.call(target, query));
          };
        },
      });
      const app = await startTestApp(counted, { deps: { now: () => new Date('2026-11-21T12:00:00Z') } });
      try {
        const { key } = await createKey(database.db, 'pro');
        const responses = await Promise.all(
          Array.from({ length: 20 }, () => app.fetch('/api/v1/trending', { headers: { 'X-Api-Key': key } })),
        );
        expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
        const bodies = await Promise.all(responses.map((r) => r.text()));
        expect(new Set(bodies).size).toBe(1);
        expect(trendingQueries).toBe(1);
      } finally {
        await app.close();
      }
    } finally {
      await database.close();
    }
  });
});
