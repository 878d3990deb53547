import { describe, expect, it } from 'vitest';
import { cachedValue } from '../../src/http/cache';
import { memoryStore } from '../../src/store/memory';
import type { Store } from '../../src/store/types';

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
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
    const processA: Store = { ...shared };
    const processB: Store = { ...shared };
    let calls = 0;
    const gate = deferred();
    const compute = async () => {
      calls += 1;
      await gate.promise;
      return 'value';
    };
    const a = cachedValue(processA, 'shared', 60, compute);
    const b = cachedValue(processB, 'shared', 60, compute);
    setTimeout(() => gate.resolve(), 150);
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
      limit: () => Promise.reject(new Error('down')),
      get: () => Promise.reject(new Error('down')),
      set: () => Promise.reject(new Error('down')),
      delete: () => Promise.reject(new Error('down')),
      ping: () => Promise.reject(new Error('down')),
    };
    expect(await cachedValue(broken, 'x', 60, async () => 42)).toMatchObject({ value: 42, hit: false });
  });
});
