import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client';
import { postgresDatabase } from '../../src/db/node';
import { signals } from '../../src/db/schema';
import { ingestSignals } from '../../src/ingest/pipeline';
import type { Store } from '../../src/store/types';
import { upstashStore } from '../../src/store/upstash';
import { FIXTURE, fixtureItems } from '../support/fixture';
import { createKey, memoryLogger, startTestApp, type TestApp, closeAfterAll } from '../support/harness';
import {
  createScratchDatabase,
  testDatabaseUrl,
  testRedisUrl,
  type ScratchDatabase,
} from '../support/services';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge';

/** Far above the store's 1 s deadline: a request still open by then has hung. */
const ANSWER_WITHIN_MS = 10_000;

interface Fault {
  name: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
}

/**
 * The Node server on a real Postgres with the real Upstash store, which reaches the Redis through
 * a REST bridge; relays sit on both sides of the bridge (store → relay → bridge → relay → Redis)
 * so the store can go away in the three ways it does in production, while the server keeps running.
 */
describe.skipIf(!testDatabaseUrl() || !testRedisUrl())('store outage', () => {
  let scratch: ScratchDatabase;
  let database: DatabaseHandle;
  let redisRelay: TcpProxy;
  let bridge: UpstashBridge;
  let restRelay: TcpProxy;
  let store: Store;
  let app: TestApp;
  const log = memoryLogger();

  const closing = closeAfterAll();
  beforeAll(async () => {
    scratch = closing(await createScratchDatabase(testDatabaseUrl()!), (it) => it.drop());
    database = closing(await postgresDatabase(scratch.url, { migrate: true }));
    await ingestSignals(database.db, fixtureItems());

    const redis = new URL(testRedisUrl()!);
    redisRelay = closing(await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) }));
    const redisViaRelay = new URL(redis);
    redisViaRelay.hostname = '127.0.0.1';
    redisViaRelay.port = String(redisRelay.port);
    bridge = closing(await startUpstashBridge({ redisUrl: redisViaRelay.toString() }));
    const rest = new URL(bridge.url);
    restRelay = closing(await startTcpProxy({ host: rest.hostname, port: Number(rest.port) }));
    store = upstashStore(
      {
        UPSTASH_REDIS_REST_URL: `http://127.0.0.1:${restRelay.port}`,
        UPSTASH_REDIS_REST_TOKEN: bridge.token,
      },
      { prefix: `test:${randomUUID()}` },
    );
    app = closing(await startTestApp(database.db, { store, deps: { log } }));
  });

  const faults: Fault[] = [
    {
      name: 'Redis is unreachable behind the REST endpoint',
      cut: () => redisRelay.stop(),
      restore: () => redisRelay.start(),
    },
    {
      name: 'the REST endpoint refuses connections',
      cut: () => restRelay.stop(),
      restore: () => restRelay.start(),
    },
    {
      name: 'the REST endpoint accepts connections but never answers',
      cut: () => restRelay.hang(),
      restore: () => restRelay.start(),
    },
  ];

  /** Waits until the store answers again (the bridge's Redis client reconnects with a backoff). */
  async function storeAnswers(): Promise<void> {
    const deadline = Date.now() + 15_000;
    // ping() gives up after the store's 1 s deadline, so a stalled store cannot hold this loop.
    const pong = () =>
      store.ping().then(
        () => true,
        () => false,
      );
    while (!(await pong())) {
      if (Date.now() > deadline) throw new Error('the store did not come back');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Runs `work` with the store cut by `fault`, and leaves the store answering again. */
  async function during(fault: Fault, work: () => Promise<void>): Promise<void> {
    await fault.cut();
    try {
      await work();
    } finally {
      await fault.restore();
      await storeAnswers();
    }
  }

  /** A request that must be answered long before any test timeout (a hang fails it clearly). */
  const request = (path: string, key?: string, init: RequestInit = {}) =>
    app.fetch(path, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), ...(key ? { 'X-Api-Key': key } : {}) },
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    });

  const limitHeaders = (res: Response) =>
    [...res.headers.keys()].filter((name) => name.toLowerCase().startsWith('x-ratelimit-'));

  const failOpenWarnings = (from: number) =>
    log.lines.slice(from).filter((line) => line.level === 'warn' && /failing open/.test(line.message));

  describe.each(faults)('while $name', (fault) => {
    it('serves keyed and public reads with no rate-limit headers, and logs that it failed open', async () => {
      const free = await createKey(database.db, 'free');
      const pro = await createKey(database.db, 'pro');
      const warm = await request('/api/v1/signals?limit=3', free.key);
      expect(warm.status).toBe(200);
      expect(warm.headers.get('x-ratelimit-limit')).toBe('100');
      const logged = log.lines.length;

      await during(fault, async () => {
        const reads: [string, string | undefined][] = [
          ['/api/v1/signals?limit=3', free.key],
          ['/api/v1/signals?limit=3', pro.key],
          ['/api/v1/health', undefined],
          ['/api/v1/freshness', undefined],
          ['/api/v1/stats', undefined],
          ['/api/v1/stats', free.key],
        ];
        const answers = await Promise.all(reads.map(([path, key]) => request(path, key)));
        for (const [i, res] of answers.entries()) {
          const label = `${reads[i]![0]} ${reads[i]![1] ? 'with a key' : 'anonymous'}`;
          expect(res.status, label).toBe(200);
          expect(limitHeaders(res), label).toEqual([]);
        }
        expect((await answers[0]!.json<{ data: unknown[] }>()).data).toHaveLength(3);
        expect(await answers[2]!.json()).toMatchObject({
          status: 'ok',
          database: 'ok',
          store: 'unavailable',
        });
      });

      // One warning per request that could not count its hits.
      expect(failOpenWarnings(logged).length).toBeGreaterThanOrEqual(6);
    });

    it('refuses revoked keys with 401 invalid_api_key: the database decides', async () => {
      const owner = await createKey(database.db, 'pro');
      const created = await request('/api/v1/keys', owner.key, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'revoked during the outage' }),
      });
      expect(created.status).toBe(201);
      const sibling = await created.json<{ id: string; key: string }>();
      const elsewhere = await createKey(database.db, 'free');
      // All three keys are now in this process's key cache.
      for (const key of [owner.key, sibling.key, elsewhere.key]) {
        expect((await request('/api/v1/signals?limit=1', key)).status).toBe(200);
      }

      const refused = async (key: string) => {
        const res = await request('/api/v1/signals?limit=1', key);
        expect(res.status).toBe(401);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(await res.json()).toMatchObject({ status: 401, code: 'invalid_api_key' });
        return res;
      };

      await during(fault, async () => {
        // Revoked by another process, whose flag in the store cannot be read now.
        await database.db.execute(sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${elsewhere.id}`);
        expect(limitHeaders(await refused(elsewhere.key))).toEqual([]);

        // Revoked here: the flag cannot be written, so the caller is told to retry...
        const revoke = await request(`/api/v1/keys/${sibling.id}`, owner.key, { method: 'DELETE' });
        expect(revoke.status).toBe(503);
        expect(Number(revoke.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(await revoke.json()).toMatchObject({ code: 'service_unavailable' });
        // ...yet the key is refused from its very next request.
        expect(limitHeaders(await refused(sibling.key))).toEqual([]);

        expect((await request('/api/v1/signals?limit=1', owner.key)).status).toBe(200);
      });

      // With the store back, the failed attempts count against the IP cap again.
      for (const key of [elsewhere.key, sibling.key]) {
        expect((await refused(key)).headers.get('x-ratelimit-tier')).toBe('public');
      }
    });

    it('answers the cached analytics endpoints from the database', async () => {
      const { key } = await createKey(database.db, 'pro');
      const cachedPaths = ['/api/v1/trending', '/api/v1/compound-crises', '/api/v1/stats'];
      for (const path of cachedPaths) {
        await request(path, key);
        const again = await request(path, key);
        expect(again.status, path).toBe(200);
        expect(again.headers.get('x-cache'), path).toBe('HIT');
      }
      const statsTotal = async (res: Response) =>
        (await res.json<{ signals: { total: number } }>()).signals.total;
      const cachedTotal = await statsTotal(await request('/api/v1/stats', key));

      await during(fault, async () => {
        // A signal the cached stats cannot know about.
        const fresh = {
          ...FIXTURE.kyivStrike,
          source_url: `https://wire.example.com/outage-${randomUUID()}`,
        };
        expect((await ingestSignals(database.db, [fresh])).accepted).toBe(1);
        const inDatabase = await database.db.$count(signals);

        const answers = await Promise.all(cachedPaths.map((path) => request(path, key)));
        for (const [i, res] of answers.entries()) {
          expect(res.status, cachedPaths[i]).toBe(200);
          expect(res.headers.get('x-cache'), cachedPaths[i]).toBe('MISS');
          expect(limitHeaders(res), cachedPaths[i]).toEqual([]);
        }
        expect(await answers[0]!.json()).toMatchObject({
          layers: expect.any(Array),
          countries: expect.any(Array),
        });
        expect(await answers[1]!.json()).toMatchObject({ data: expect.any(Array) });
        const total = await statsTotal(answers[2]!);
        expect(total).toBe(inDatabase);
        expect(total).toBeGreaterThan(cachedTotal);
      });
    });

    it('sends the rate-limit headers and counts hits again once the store is back, without a restart', async () => {
      const { key } = await createKey(database.db, 'free');
      const before = await request('/api/v1/signals?limit=1', key);
      expect(before.headers.get('x-ratelimit-tier')).toBe('free');

      await during(fault, async () => {
        for (let i = 0; i < 3; i++) {
          const res = await request('/api/v1/signals?limit=1', key);
          expect(res.status).toBe(200);
          expect(limitHeaders(res)).toEqual([]);
        }
      });

      const first = await request('/api/v1/signals?limit=1', key);
      const second = await request('/api/v1/signals?limit=1', key);
      for (const res of [first, second]) {
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-limit')).toBe('100');
        expect(res.headers.get('x-ratelimit-tier')).toBe('free');
        expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
      }
      const remaining = (res: Response) => Number(res.headers.get('x-ratelimit-remaining'));
      expect(remaining(first)).toBeLessThan(100);
      expect(remaining(second)).toBe(remaining(first) - 1);

      const anonymous = await request('/api/v1/health');
      expect(anonymous.headers.get('x-ratelimit-tier')).toBe('public');
      expect(anonymous.headers.get('x-ratelimit-limit')).toBe('60');
      expect(await anonymous.json()).toMatchObject({ store: 'ok' });
    });
  });
});
