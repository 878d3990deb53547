import { describe, expect, it, vi } from 'vitest';
import type { Store } from '../../src/store/types';

const ctx = { waitUntil: () => {}, passThroughOnException: () => {} } as never;
const DATABASE_URL = 'postgres://user:password@db.example.invalid/signals';

/** A fresh copy of the Worker's deps module: its store is chosen once per isolate. */
async function workerStoreFor(env: Record<string, string>): Promise<Store> {
  vi.resetModules();
  const { workerDeps } = await import('../../src/worker-deps');
  const { deps, database } = workerDeps({ DATABASE_URL, ...env }, ctx);
  await database.close();
  return deps.store;
}

/** The API Worker's store: Upstash when configured, else a per-isolate memory store. */
describe("the Worker's store choice", () => {
  it('falls back to a working memory store without the UPSTASH_* secrets', async () => {
    const store = await workerStoreFor({});
    expect(store.kind).toBe('memory');
    const rule = { name: 'fallback', limit: 2, windowSeconds: 3600 };
    const results = [];
    for (let i = 0; i < 3; i++) results.push((await store.limit(rule, 'ip-1')).success);
    expect(results).toEqual([true, true, false]);
    await store.set('k', { v: 1 }, 60);
    expect(await store.get('k')).toEqual({ v: 1 });
  });

  it('keeps one store for the isolate across invocations', async () => {
    vi.resetModules();
    const { workerDeps } = await import('../../src/worker-deps');
    const env = { DATABASE_URL } as never;
    const first = workerDeps(env, ctx);
    const second = workerDeps(env, ctx);
    expect(second.deps.store).toBe(first.deps.store);
    await first.database.close();
    await second.database.close();
  });

  it('uses Upstash when both secrets are set (one alone is a configuration error)', async () => {
    const both = {
      UPSTASH_REDIS_REST_URL: 'https://redis.example.invalid',
      UPSTASH_REDIS_REST_TOKEN: 'token',
    };
    expect((await workerStoreFor(both)).kind).toBe('upstash');
    await expect(workerStoreFor({ UPSTASH_REDIS_REST_URL: both.UPSTASH_REDIS_REST_URL })).rejects.toThrow(
      /must be set together/,
    );
  });
});
