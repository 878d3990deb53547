import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config';
import { clientBucket, forwardedClient, workerClientIp } from '../../src/http/client-ip';
import { memoryStore } from '../../src/store/memory';
import {
  ADMIN_TOKEN,
  createKey,
  startTestApp,
  type TestApp,
  closeAfterAll,
  withTestDatabase,
} from '../support/harness';

type Problem = { code: string };

/** A fixed clock far from any window edge, so every count below is exact. */
const FROZEN = Date.UTC(2026, 0, 1, 12, 30, 0);

describe('limit evasion', () => {
  const database = withTestDatabase();
  const closing = closeAfterAll();

  async function freshApp(config: Partial<Config> = {}): Promise<TestApp> {
    return closing(await startTestApp(database.db, { store: memoryStore(() => FROZEN), config }));
  }
  const remaining = (res: Response) => res.headers.get('x-ratelimit-remaining');
  const from = (forwardedFor: string, headers: Record<string, string> = {}): RequestInit => ({
    headers: { 'X-Forwarded-For': forwardedFor, ...headers },
  });

  describe('the client address', () => {
    it('behind a trusted proxy is the right-most X-Forwarded-For entry, not what the client wrote', async () => {
      const app = await freshApp({ TRUST_PROXY: true });
      const answers = [];
      for (const forged of ['203.0.113.1', '203.0.113.2', '192.0.2.9, 203.0.113.3']) {
        answers.push(remaining(await app.fetch('/api/v1/health', from(`${forged}, 198.51.100.7`))));
      }
      expect(answers).toEqual(['59', '58', '57']);
      expect(remaining(await app.fetch('/api/v1/health', from('198.51.100.8')))).toBe('59');
    });

    it('with TRUST_PROXY_HOPS=2 is the second entry from the right', async () => {
      const app = await freshApp({ TRUST_PROXY: true, TRUST_PROXY_HOPS: 2 });
      const first = await app.fetch('/api/v1/health', from('203.0.113.1, 198.51.100.7, 10.0.0.2'));
      const second = await app.fetch('/api/v1/health', from('203.0.113.2, 198.51.100.7, 10.0.0.3'));
      expect([remaining(first), remaining(second)]).toEqual(['59', '58']);
      expect(forwardedClient('198.51.100.7, 10.0.0.2', 2)).toBe('198.51.100.7');
      // Fewer entries than proxies: the left-most, which a trusted proxy still wrote.
      expect(forwardedClient('198.51.100.7', 2)).toBe('198.51.100.7');
      expect(forwardedClient('not-an-ip', 1)).toBeUndefined();
    });

    it('buckets IPv6 clients by /64 for every per-IP limit', async () => {
      const app = await freshApp({ TRUST_PROXY: true });
      const answers = [];
      for (const address of ['2001:db8:7:8::1', '2001:db8:7:8:ffff:1:2:3', '[2001:db8:7:8::abcd]']) {
        answers.push(remaining(await app.fetch('/api/v1/health', from(address))));
      }
      expect(answers).toEqual(['59', '58', '57']);
      expect(remaining(await app.fetch('/api/v1/health', from('2001:db8:7:9::1')))).toBe('59');

      // Signups (5 per hour per IP) share the same bucket.
      const signups = [];
      for (let i = 0; i < 6; i++) {
        const res = await app.fetch('/api/v1/keys', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': `2001:db8:5:6::${i + 1}` },
          body: JSON.stringify({ email: `v6-${i}-${Date.now()}@example.org` }),
        });
        signups.push(res.status);
      }
      expect(signups).toEqual([201, 201, 201, 201, 201, 429]);

      expect(clientBucket('::ffff:198.51.100.7')).toBe('198.51.100.7');
      expect(clientBucket('2001:DB8:0:0:1::1')).toBe('2001:db8:0:0::/64');
    });

    it('on Workers is CF-Connecting-IP, bucketed the same way', async () => {
      const worker = new Hono().get('/', (c) => c.text(workerClientIp(c)));
      const ask = async (headers: Record<string, string>) => (await worker.request('/', { headers })).text();
      expect(await ask({ 'CF-Connecting-IP': '2001:db8:1:2:3:4:5:6' })).toBe('2001:db8:1:2::/64');
      expect(await ask({ 'CF-Connecting-IP': '198.51.100.7', 'X-Forwarded-For': '203.0.113.1' })).toBe(
        '198.51.100.7',
      );
      expect(await ask({})).toBe('unknown');
    });
  });

  it('limits an account to 10 new keys per rolling 24 hours, revoked ones included', async () => {
    const app = await freshApp();
    const owner = await createKey(database.db, 'free');
    const as = (init: RequestInit = {}): RequestInit => ({
      ...init,
      headers: { 'X-Api-Key': owner.key, 'Content-Type': 'application/json' },
    });
    for (let i = 0; i < 10; i++) {
      const res = await app.fetch(
        '/api/v1/keys',
        as({ method: 'POST', body: JSON.stringify({ name: `k${i}` }) }),
      );
      expect(res.status).toBe(201);
      const { id } = await res.json<{ id: string }>();
      // Revoked at once, so the 10-active-keys limit never binds: only the daily one can.
      expect((await app.fetch(`/api/v1/keys/${id}`, as({ method: 'DELETE' }))).status).toBe(204);
    }
    const refused = await app.fetch('/api/v1/keys', as({ method: 'POST', body: '{}' }));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await refused.json<Problem>()).code).toBe('rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(23 * 3600);
    expect(retryAfter).toBeLessThanOrEqual(24 * 3600);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('10');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    const list = await (await app.fetch('/api/v1/keys', as())).json<{ data: unknown[] }>();
    expect(list.data).toHaveLength(11);
  });

  it('limits failed admin-token attempts per IP; past the limit even the right token waits', async () => {
    const app = await freshApp({ TRUST_PROXY: true });
    const adminCall = (token: string, ip: string) =>
      app.fetch('/api/v1/admin/keys', {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          'X-Forwarded-For': ip,
        },
        body: JSON.stringify({ email: `admin-${ip}-${Date.now()}@example.org`, tier: 'free' }),
      });
    const wrong = 'wrong-admin-token-0123456789';
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push((await adminCall(wrong, '2001:db8:aa::1')).status);
    expect(statuses).toEqual(Array(10).fill(401));
    const blocked = await adminCall(ADMIN_TOKEN, '2001:db8:aa::2');
    expect(blocked.status).toBe(429);
    expect((await blocked.json<Problem>()).code).toBe('rate_limited');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another address is not affected.
    expect((await adminCall(ADMIN_TOKEN, '198.51.100.20')).status).toBe(201);
  });
});
