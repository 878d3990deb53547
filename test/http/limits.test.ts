import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config';
import {
  createKey,
  json,
  startTestApp,
  type TestApp,
  closeAfterAll,
  withTestDatabase,
} from '../support/harness';
import { clearOfWindowEdge, storeKinds, type TestStore } from './stores';

const LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-tier'];

describe.each(storeKinds())('rate limits on the $name store', (kind) => {
  const database = withTestDatabase();
  afterAll(() => kind.close());
  const closing = closeAfterAll();

  /** A server with fresh buckets of its own. */
  async function freshApp(config: Partial<Config> = {}): Promise<{ app: TestApp; store: TestStore }> {
    // A minute edge is also an hour edge: this keeps every window these tests fill whole.
    await clearOfWindowEdge(60);
    const store = await kind.open();
    const app = closing(await startTestApp(database.db, { store: store.store, config }));
    return { app, store };
  }
  const withKey = (key: string, headers: Record<string, string> = {}) => ({
    headers: { 'X-Api-Key': key, ...headers },
  });

  it('lets exactly 100 of 150 concurrent requests on a fresh free key through; the rest are 429', async () => {
    const { app } = await freshApp();
    const { key } = await createKey(database.db, 'free');
    const responses = await Promise.all(
      Array.from({ length: 150 }, () => app.fetch('/api/v1/signals?limit=1', withKey(key))),
    );
    const ok = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 429);
    expect(ok.length + refused.length).toBe(150);
    // A fresh key in a fresh store has no previous window to weigh, and the test starts clear of
    // a window edge: the sliding window must admit exactly its limit, no fewer and no more.
    expect(ok.length).toBe(100);
    expect(refused.length).toBe(50);
    const remaining = ok.map((r) => Number(r.headers.get('x-ratelimit-remaining')));
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    for (const r of ok) {
      expect(r.headers.get('x-ratelimit-limit')).toBe('100');
      expect(r.headers.get('x-ratelimit-tier')).toBe('free');
    }
    const nowSeconds = Date.now() / 1000;
    for (const r of refused) {
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.headers.get('x-ratelimit-limit')).toBe('100');
      expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(r.headers.get('x-ratelimit-tier')).toBe('free');
      const reset = Number(r.headers.get('x-ratelimit-reset'));
      expect(Number.isInteger(reset) && reset >= nowSeconds - 1 && reset <= nowSeconds + 3600 + 1).toBe(true);
      const retryAfter = Number(r.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 3600).toBe(true);
      expect((await r.json<{ code: string }>()).code).toBe('rate_limited');
    }
  });

  it('refuses the 61st public request in a minute from one IP', async () => {
    const { app } = await freshApp();
    for (let i = 0; i < 60; i++) {
      const res = await app.fetch('/api/v1/health');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(59 - i));
    }
    const res = await app.fetch('/api/v1/health');
    expect(res.status).toBe(429);
    expect(res.headers.get('x-ratelimit-tier')).toBe('public');
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('ignores a forged X-Forwarded-For unless TRUST_PROXY=true', async () => {
    const { app } = await freshApp();
    for (let i = 0; i < 60; i++) {
      await app.fetch('/api/v1/health', { headers: { 'X-Forwarded-For': `203.0.113.${i}` } });
    }
    const forged = await app.fetch('/api/v1/health', { headers: { 'X-Forwarded-For': '198.51.100.7' } });
    expect(forged.status).toBe(429);

    const { app: proxied } = await freshApp({ TRUST_PROXY: true });
    const first = await proxied.fetch('/api/v1/health', {
      headers: { 'X-Forwarded-For': '10.0.0.1, 198.51.100.7' },
    });
    const again = await proxied.fetch('/api/v1/health', { headers: { 'X-Forwarded-For': '198.51.100.7' } });
    const other = await proxied.fetch('/api/v1/health', { headers: { 'X-Forwarded-For': '198.51.100.8' } });
    expect([first, again, other].map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual([
      '59',
      '58',
      '59',
    ]);
  });

  it('counts failed key attempts against the IP cap', async () => {
    const { app } = await freshApp();
    const forged = `sig_${'A'.repeat(40)}`;
    const unknown = (await createKey(database.db, 'free')).key.replace(/.{6}$/, 'zzzzzz');
    for (const [i, bad] of [forged, unknown, 'not-a-key'].entries()) {
      const res = await app.fetch('/api/v1/signals', withKey(bad));
      expect(res.status).toBe(401);
      expect((await res.json<{ code: string }>()).code).toBe('invalid_api_key');
      expect(res.headers.get('x-ratelimit-tier')).toBe('public');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(59 - i));
    }
    expect((await app.fetch('/api/v1/health')).headers.get('x-ratelimit-remaining')).toBe('56');
  });

  it('counts a free key on a public endpoint against the IP cap too; a pro key bypasses it', async () => {
    const { app } = await freshApp();
    const free = (await createKey(database.db, 'free')).key;
    const pro = (await createKey(database.db, 'pro')).key;
    for (let i = 0; i < 60; i++) await app.fetch('/api/v1/health');
    const freePublic = await app.fetch('/api/v1/health', withKey(free));
    expect(freePublic.status).toBe(429);
    expect(freePublic.headers.get('x-ratelimit-tier')).toBe('public');
    const proPublic = await app.fetch('/api/v1/health', withKey(pro));
    expect(proPublic.status).toBe(200);
    expect(proPublic.headers.get('x-ratelimit-tier')).toBe('pro');
    expect(proPublic.headers.get('x-ratelimit-limit')).toBe('2000');
    const freeKeyed = await app.fetch('/api/v1/signals?limit=1', withKey(free));
    expect(freeKeyed.status).toBe(200);
    expect(freeKeyed.headers.get('x-ratelimit-tier')).toBe('free');
  });

  it('allows 5 signups per hour per IP', async () => {
    const { app } = await freshApp();
    const stamp = Date.now();
    for (let i = 0; i < 5; i++) {
      expect((await app.fetch('/api/v1/keys', json({ email: `s${i}-${stamp}@example.org` }))).status).toBe(
        201,
      );
    }
    const sixth = await app.fetch('/api/v1/keys', json({ email: `s5-${stamp}@example.org` }));
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get('x-ratelimit-limit')).toBe('5');
  });

  it('serves requests without limit headers while the store is down, and still refuses revoked keys', async () => {
    const { app, store } = await freshApp();
    const good = await createKey(database.db, 'pro');
    const doomed = await createKey(database.db, 'free');
    // Both keys are now in the key cache.
    for (const key of [good.key, doomed.key]) {
      expect(
        (await app.fetch('/api/v1/signals?limit=1', withKey(key))).headers.get('x-ratelimit-limit'),
      ).not.toBeNull();
    }

    store.stop();
    const keyed = await app.fetch('/api/v1/signals?limit=1', withKey(good.key));
    const anonymous = await app.fetch('/api/v1/health');
    for (const res of [keyed, anonymous]) {
      expect(res.status).toBe(200);
      for (const name of LIMIT_HEADERS) expect(res.headers.get(name)).toBeNull();
    }
    expect(await anonymous.json<{ store: string }>()).toMatchObject({ store: 'unavailable' });
    // Revoked behind this process's back (no flag in the store): the database decides.
    await database.db.execute(sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${doomed.id}`);
    const revoked = await app.fetch('/api/v1/signals?limit=1', withKey(doomed.key));
    expect(revoked.status).toBe(401);
    for (const name of LIMIT_HEADERS) expect(revoked.headers.get(name)).toBeNull();
    const logged = (app.deps.log as unknown as { lines: { message: string }[] }).lines;
    expect(logged.some((l) => /store unavailable/.test(l.message))).toBe(true);

    store.start();
    const back = await app.fetch('/api/v1/signals?limit=1', withKey(good.key));
    expect(back.status).toBe(200);
    expect(back.headers.get('x-ratelimit-tier')).toBe('pro');
  });

  it.runIf(kind.name === 'upstash')('fails open when the store is slower than a second', async () => {
    const { app, store } = await freshApp();
    const { key } = await createKey(database.db, 'pro');
    expect((await app.fetch('/api/v1/signals?limit=1', withKey(key))).status).toBe(200);
    store.hang!();
    try {
      const res = await app.fetch('/api/v1/signals?limit=1', withKey(key));
      expect(res.status).toBe(200);
      for (const name of LIMIT_HEADERS) expect(res.headers.get(name)).toBeNull();
    } finally {
      store.start();
    }
  });
});
