import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../src/store/memory';
import type { LimitRule, Store } from '../../src/store/types';
import { upstashStore } from '../../src/store/upstash';
import { testRedisUrl } from '../support/services';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge';

// A window this long (about 11.6 days) cannot roll over while a test runs on the real clock.
const LONG = 1_000_000;
const rule = (limit: number, name = `t${randomUUID().slice(0, 8)}`): LimitRule => ({
  name,
  limit,
  windowSeconds: LONG,
});
const fresh = () => randomUUID();

interface Adapter {
  name: string;
  open(): Promise<{ store: Store; close(): Promise<void> }>;
}

const adapters: Adapter[] = [
  { name: 'memory', open: async () => ({ store: memoryStore(), close: async () => {} }) },
  ...(testRedisUrl()
    ? [
        {
          name: 'upstash',
          open: async () => {
            const bridge: UpstashBridge = await startUpstashBridge();
            const store = upstashStore({
              UPSTASH_REDIS_REST_URL: bridge.url,
              UPSTASH_REDIS_REST_TOKEN: bridge.token,
            });
            return { store, close: () => bridge.close() };
          },
        },
      ]
    : []),
];

describe.each(adapters)('the $name store', (adapter) => {
  let store: Store;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ store, close } = await adapter.open());
  });
  afterAll(async () => close?.());

  const one = async (r: LimitRule, id: string) =>
    (await store.admit([{ rule: r, identifier: id }])).results[0]!;

  it('counts down, refuses at the limit without counting the refusal, and resets at the window end', async () => {
    const r = rule(3);
    const id = fresh();
    const before = Date.now();
    const seen = [];
    for (let i = 0; i < 5; i++) seen.push(await one(r, id));
    expect(seen.map((s) => [s.success, s.remaining, s.limit])).toEqual([
      [true, 2, 3],
      [true, 1, 3],
      [true, 0, 3],
      [false, 0, 3],
      [false, 0, 3],
    ]);
    const windowMs = LONG * 1000;
    const reset = (Math.floor(before / windowMs) + 1) * windowMs;
    for (const s of seen) expect(s.reset).toBe(reset);
    expect(await store.peek(r, id)).toMatchObject({ success: false, remaining: 0, limit: 3, reset });
  });

  it('keeps rules and identifiers apart', async () => {
    const a = rule(2);
    const b = rule(2);
    const id = fresh();
    await one(a, id);
    await one(a, id);
    expect((await one(a, id)).success).toBe(false);
    expect((await one(b, id)).remaining).toBe(1);
    expect((await one(a, fresh())).remaining).toBe(1);
  });

  it('counts several hits and reads a flag in one call', async () => {
    const a = rule(5);
    const b = rule(1);
    const id = fresh();
    const flag = `flag:${fresh()}`;
    const first = await store.admit(
      [
        { rule: a, identifier: id },
        { rule: b, identifier: id },
      ],
      flag,
    );
    expect(first.flagged).toBe(false);
    expect(first.results.map((r) => [r.success, r.remaining])).toEqual([
      [true, 4],
      [true, 0],
    ]);
    await store.set(flag, true, 60);
    const second = await store.admit([{ rule: b, identifier: id }], flag);
    expect(second).toMatchObject({ flagged: true, results: [{ success: false }] });
    await store.delete(flag);
    expect((await store.admit([], flag)).flagged).toBe(false);
  });

  it('counts a single hit with limit()', async () => {
    const r = rule(1);
    const id = fresh();
    expect(await store.limit(r, id)).toMatchObject({ success: true, remaining: 0, limit: 1 });
    expect(await store.limit(r, id)).toMatchObject({ success: false, remaining: 0 });
  });

  it('peeks without counting', async () => {
    const r = rule(4);
    const id = fresh();
    expect(await store.peek(r, id)).toMatchObject({ success: true, remaining: 4, limit: 4 });
    await one(r, id);
    expect((await store.peek(r, id)).remaining).toBe(3);
    expect((await store.peek(r, id)).remaining).toBe(3);
  });

  it('caches JSON values', async () => {
    const key = `cache:${fresh()}`;
    expect(await store.get(key)).toBeNull();
    await store.set(key, { a: [1, 'two'] }, 60);
    expect(await store.get(key)).toEqual({ a: [1, 'two'] });
    await store.delete(key);
    expect(await store.get(key)).toBeNull();
    await expect(store.ping()).resolves.toBeUndefined();
  });
});

describe('the memory store on an injected clock', () => {
  const MINUTE = 60_000;
  const start = 1_800_000_000_000 - (1_800_000_000_000 % MINUTE); // a window edge
  const r: LimitRule = { name: 'ip', limit: 3, windowSeconds: 60 };

  const clocked = () => {
    let t = start;
    const store = memoryStore(() => t);
    return {
      at: (ms: number) => (t = start + ms),
      hit: async () => (await store.admit([{ rule: r, identifier: 'client' }])).results[0]!,
      store,
    };
  };

  it('resets at the end of the fixed window the request falls in', async () => {
    const { at, hit } = clocked();
    at(0);
    expect(await hit()).toMatchObject({ success: true, remaining: 2, reset: start + MINUTE });
    at(MINUTE - 1);
    expect(await hit()).toMatchObject({ success: true, remaining: 1, reset: start + MINUTE });
    at(MINUTE);
    expect((await hit()).reset).toBe(start + 2 * MINUTE);
  });

  it('slides: the previous window counts in proportion to its overlap', async () => {
    const { at, hit } = clocked();
    at(10_000);
    for (let i = 0; i < 3; i++) expect((await hit()).success).toBe(true);
    expect(await hit()).toMatchObject({ success: false, remaining: 0, reset: start + MINUTE });
    // Just after the edge all 3 previous hits still overlap: floor(3 × 1) = 3.
    at(MINUTE);
    expect(await hit()).toMatchObject({ success: false, reset: start + 2 * MINUTE });
    // A third into the new window: floor(3 × 2/3) = 2 used, so one more fits.
    at(MINUTE + 20_000);
    expect(await hit()).toMatchObject({ success: true, remaining: 0 });
    expect((await hit()).success).toBe(false);
    // Two thirds in: floor(3 × 1/3) + 1 = 2 used.
    at(MINUTE + 40_000);
    expect(await hit()).toMatchObject({ success: true, remaining: 0 });
  });

  it('forgets everything after two idle windows', async () => {
    const { at, hit } = clocked();
    at(0);
    for (let i = 0; i < 4; i++) await hit();
    at(2 * MINUTE + 1);
    expect(await hit()).toMatchObject({ success: true, remaining: 2, reset: start + 3 * MINUTE });
  });

  it('expires cached values and flags at their TTL', async () => {
    const { at, store } = clocked();
    at(0);
    await store.set('revoked:k', true, 30);
    at(29_999);
    expect(await store.get('revoked:k')).toBe(true);
    expect((await store.admit([], 'revoked:k')).flagged).toBe(true);
    at(30_000);
    expect(await store.get('revoked:k')).toBeNull();
    expect((await store.admit([], 'revoked:k')).flagged).toBe(false);
  });
});
