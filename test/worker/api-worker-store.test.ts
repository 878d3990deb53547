import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clearOfWindowEdge } from '../http/stores';
import { testDatabaseUrl, testRedisUrl } from '../support/services';
import { withApiWorker } from './services';

interface IssuedKey {
  id: string;
  key: string;
  tier: string;
}

// The API Worker in workerd with its production store: @upstash/redis and @upstash/ratelimit
// over REST (the bridge) to the CI Redis, next to the Neon driver to the CI Postgres.
describe.skipIf(!testDatabaseUrl() || !testRedisUrl())('API Worker in workerd with the Upstash store', () => {
  let lastIp = 0;

  // 'error': the outage test's fail-open warnings are expected.
  const worker = withApiWorker({ LOG_LEVEL: 'error' });

  /** A client address of its own (TEST-NET-3), so no test shares another's IP bucket. */
  const freshIp = () => `203.0.113.${++lastIp}`;
  const from = (ip: string, headers: Record<string, string> = {}) => ({
    headers: { 'CF-Connecting-IP': ip, ...headers },
  });
  const withKey = (ip: string, key: string) => from(ip, { 'X-Api-Key': key });
  const postJson = (path: string, body: unknown, headers: Record<string, string>) =>
    worker.fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const signUp = async (ip: string): Promise<IssuedKey> => {
    const res = await postJson(
      '/api/v1/keys',
      { email: `workerd-${randomUUID()}@example.org` },
      { 'CF-Connecting-IP': ip },
    );
    expect(res.status, await res.clone().text()).toBe(201);
    return await res.json<IssuedKey>();
  };
  /** Another key on the account of `key`. */
  const addKey = async (ip: string, key: string): Promise<IssuedKey> => {
    const res = await postJson(
      '/api/v1/keys',
      { name: 'another' },
      { 'CF-Connecting-IP': ip, 'X-Api-Key': key },
    );
    expect(res.status, await res.clone().text()).toBe(201);
    return await res.json<IssuedKey>();
  };
  const expectProblem = async (res: Response, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({ status, code });
  };
  const limitHeaders = (res: Response) => ({
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    tier: res.headers.get('x-ratelimit-tier'),
  });
  const expectRetryAfter = (res: Response, max: number) => {
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= max).toBe(true);
  };

  it('fails open while the store is down: served without limit headers, and a revocation still holds', async () => {
    const ip = freshIp();
    const health = await worker.fetch('/api/v1/health', from(ip));
    expect(await health.json()).toMatchObject({ status: 'ok', database: 'ok', store: 'ok' });
    const first = await signUp(ip);
    const second = await addKey(ip, first.key);
    // Cached in the isolate by a successful use: during the outage only the database can refuse it.
    expect((await worker.fetch('/api/v1/signals?limit=1', withKey(ip, second.key))).status).toBe(200);

    try {
      worker.services.pauseStore('error');
      const down = await worker.fetch('/api/v1/health', from(ip));
      expect(down.status).toBe(200);
      expect(await down.json()).toMatchObject({ status: 'ok', store: 'unavailable' });
      const served = await worker.fetch('/api/v1/signals?limit=1', withKey(ip, first.key));
      expect(served.status).toBe(200);
      expect(limitHeaders(served)).toEqual({ limit: null, remaining: null, tier: null });

      const refused = await worker.fetch(`/api/v1/keys/${second.id}`, {
        method: 'DELETE',
        ...withKey(ip, first.key),
      });
      expect(refused.headers.get('retry-after')).toBe('5');
      await expectProblem(refused, 503, 'service_unavailable');
      await expectProblem(
        await worker.fetch('/api/v1/signals?limit=1', withKey(ip, second.key)),
        401,
        'invalid_api_key',
      );

      // A store that hangs is given up on after its 1 s deadline.
      worker.services.pauseStore('hang');
      // Answered without limit headers: the store was given up on (how fast: `npm run bench`).
      const slow = await worker.fetch('/api/v1/signals?limit=1', withKey(ip, first.key));
      expect(slow.status).toBe(200);
      expect(slow.headers.get('x-ratelimit-limit')).toBeNull();
    } finally {
      worker.services.resumeStore();
    }

    const retried = await worker.fetch(`/api/v1/keys/${second.id}`, {
      method: 'DELETE',
      ...withKey(ip, first.key),
    });
    expect(retried.status).toBe(204);
    expect(await worker.services.storeKeys(`si:kv:revoked:${second.id}`)).toHaveLength(1);
    const back = await worker.fetch('/api/v1/signals?limit=1', withKey(ip, first.key));
    expect(back.status).toBe(200);
    expect(limitHeaders(back)).toMatchObject({ limit: '100', tier: 'free' });
  });

  it('limits a signed-up free key to 100 requests an hour, counted in Redis', async () => {
    // The sliding window reweighs the counts once a fixed window ends: stay clear of the hour's edge.
    await clearOfWindowEdge(3600, 60_000);
    const ip = freshIp();
    const issued = await signUp(ip);
    expect(issued).toMatchObject({ tier: 'free' });
    expect(issued.key).toMatch(/^sig_[0-9A-Za-z]{40}$/);

    for (let i = 0; i < 100; i++) {
      const res = await worker.fetch('/api/v1/signals?limit=1', withKey(ip, issued.key));
      expect(res.status).toBe(200);
      expect(limitHeaders(res)).toEqual({ limit: '100', remaining: String(99 - i), tier: 'free' });
      await res.arrayBuffer();
    }
    const refused = await worker.fetch('/api/v1/signals?limit=1', withKey(ip, issued.key));
    expect(limitHeaders(refused)).toEqual({ limit: '100', remaining: '0', tier: 'free' });
    expectRetryAfter(refused, 3600);
    const reset = Number(refused.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(Date.now() / 1000 - 1);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 3601);
    await expectProblem(refused, 429, 'rate_limited');

    // The counts live in Redis under the store's prefix, not in the isolate.
    expect((await worker.services.storeKeys(`si:rl:free:${issued.id}:*`)).length).toBeGreaterThan(0);
  }, 150_000);

  it('refuses the 61st anonymous request in a minute from one CF-Connecting-IP', async () => {
    await clearOfWindowEdge(60, 15_000);
    const ip = freshIp();
    for (let i = 0; i < 60; i++) {
      const res = await worker.fetch('/api/v1/health', from(ip));
      expect(res.status).toBe(200);
      expect(limitHeaders(res)).toEqual({ limit: '60', remaining: String(59 - i), tier: 'public' });
      await res.arrayBuffer();
    }
    const refused = await worker.fetch('/api/v1/health', from(ip));
    expect(limitHeaders(refused)).toEqual({ limit: '60', remaining: '0', tier: 'public' });
    expectRetryAfter(refused, 60);
    await expectProblem(refused, 429, 'rate_limited');

    // The cap is per client IP across the public endpoints, and a forged X-Forwarded-For
    // does not move the caller to another bucket.
    await expectProblem(await worker.fetch('/api/v1/stats', from(ip)), 429, 'rate_limited');
    await expectProblem(
      await worker.fetch('/api/v1/health', from(ip, { 'X-Forwarded-For': '192.0.2.77' })),
      429,
      'rate_limited',
    );
    const other = await worker.fetch('/api/v1/health', from(freshIp()));
    expect(other.status).toBe(200);
    expect(limitHeaders(other)).toEqual({ limit: '60', remaining: '59', tier: 'public' });
    expect((await worker.services.storeKeys(`si:rl:ip:${ip}:*`)).length).toBeGreaterThan(0);
  }, 90_000);

  it('refuses a key revoked by another key of its account on its very next request', async () => {
    const ip = freshIp();
    const first = await signUp(ip);
    const second = await addKey(ip, first.key);
    expect(second.tier).toBe('free');

    // A successful use first, so the isolate has the key cached: the revocation must beat that cache.
    const before = await worker.fetch('/api/v1/signals?limit=1', withKey(ip, second.key));
    expect(before.status).toBe(200);
    expect(limitHeaders(before)).toMatchObject({ limit: '100', tier: 'free' });

    await expectProblem(
      await worker.fetch(`/api/v1/keys/${first.id}`, { method: 'DELETE', ...withKey(ip, first.key) }),
      409,
      'cannot_revoke_current_key',
    );
    const revoked = await worker.fetch(`/api/v1/keys/${second.id}`, {
      method: 'DELETE',
      ...withKey(ip, first.key),
    });
    expect(revoked.status).toBe(204);
    expect(await revoked.text()).toBe('');

    await expectProblem(
      await worker.fetch('/api/v1/signals?limit=1', withKey(ip, second.key)),
      401,
      'invalid_api_key',
    );
    await expectProblem(await worker.fetch('/api/v1/keys', withKey(ip, second.key)), 401, 'invalid_api_key');
    expect(await worker.services.storeKeys(`si:kv:revoked:${second.id}`)).toEqual([
      `si:kv:revoked:${second.id}`,
    ]);

    const list = await worker.fetch('/api/v1/keys', withKey(ip, first.key));
    expect(list.status).toBe(200);
    const { data } = await list.json<{ data: { id: string; revoked_at: string | null }[] }>();
    expect(data.find((k) => k.id === second.id)?.revoked_at).toEqual(expect.any(String));
    expect(data.find((k) => k.id === first.id)?.revoked_at).toBeNull();
  });
});
