/**
 * Exercises the production drivers (@neondatabase/serverless, @upstash/redis,
 * @upstash/ratelimit) against local Postgres / Redis through the test bridges.
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test \
 *   TEST_REDIS_URL=redis://127.0.0.1:6379 npx vitest run test/support
 */
import { randomBytes } from 'node:crypto';
import type { Pool } from '@neondatabase/serverless';
import { Ratelimit } from '@upstash/ratelimit';
import { Redis } from '@upstash/redis';
import { eq, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/neon-serverless';
import { integer, pgTable, serial, text } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { configureNeon, neonPool, startNeonBridge, type NeonBridge } from './neon-bridge.js';
import { createScratchDatabase, testDatabaseUrl, testRedisUrl, type ScratchDatabase } from './services.js';
import { startUpstashBridge, type UpstashBridge } from './upstash-bridge.js';

const databaseUrl = testDatabaseUrl();
const redisUrl = testRedisUrl();

describe.skipIf(!databaseUrl)('Neon serverless driver through the WebSocket bridge', () => {
  let bridge: NeonBridge;
  let scratch: ScratchDatabase;
  let pool: Pool;

  beforeAll(async () => {
    bridge = await startNeonBridge();
    configureNeon(bridge.port);
    configureNeon(bridge.port); // idempotent
    scratch = await createScratchDatabase(databaseUrl!);
    pool = neonPool(scratch.url);
    await pool.query('CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL, qty int NOT NULL)');
  });

  afterAll(async () => {
    await pool?.end();
    await scratch?.drop();
    await bridge?.close();
  });

  it('runs parameterised queries on the scratch database', async () => {
    const { rows } = await pool.query<{ sum: number; label: string; db: string }>(
      'SELECT $1::int + $2::int AS sum, $3::text AS label, current_database() AS db',
      [2, 3, 'héllo ✓'],
    );
    expect(rows).toEqual([{ sum: 5, label: 'héllo ✓', db: new URL(scratch.url).pathname.slice(1) }]);

    await pool.query('INSERT INTO items (name, qty) VALUES ($1, $2), ($3, $4)', ['a', 1, 'b', 2]);
    const res = await pool.query('SELECT name, qty FROM items WHERE qty >= $1 ORDER BY name', [1]);
    expect(res.rows).toEqual([
      { name: 'a', qty: 1 },
      { name: 'b', qty: 2 },
    ]);
  });

  it('commits and rolls back transactions', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('INSERT INTO items (name, qty) VALUES ($1, $2)', ['rolled-back', 1]);
      await client.query('ROLLBACK');

      await client.query('BEGIN');
      await client.query('INSERT INTO items (name, qty) VALUES ($1, $2)', ['committed', 1]);
      await expect(client.query('SELECT 1/0')).rejects.toThrow(/division by zero/);
      await client.query('ROLLBACK');

      await client.query('BEGIN');
      await client.query('INSERT INTO items (name, qty) VALUES ($1, $2)', ['committed', 1]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const { rows } = await pool.query<{ name: string }>(
      "SELECT name FROM items WHERE name IN ('rolled-back', 'committed')",
    );
    expect(rows).toEqual([{ name: 'committed' }]);
  });

  it('serves concurrent queries over several connections', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        pool.query<{ i: number; pid: number }>(
          'SELECT $1::int AS i, pg_backend_pid() AS pid, pg_sleep(0.1)',
          [i],
        ),
      ),
    );
    expect(results.map((r) => r.rows[0]!.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(new Set(results.map((r) => r.rows[0]!.pid)).size).toBeGreaterThan(1);
  });

  it('works with drizzle-orm/neon-serverless', async () => {
    const widgets = pgTable('widgets', {
      id: serial('id').primaryKey(),
      name: text('name').notNull(),
      stock: integer('stock').notNull().default(0),
    });
    const db = drizzle({ client: pool });
    await db.execute(
      sql`CREATE TABLE widgets (id serial PRIMARY KEY, name text NOT NULL, stock int NOT NULL DEFAULT 0)`,
    );

    const [inserted] = await db.insert(widgets).values({ name: 'gear', stock: 5 }).returning();
    expect(inserted).toMatchObject({ name: 'gear', stock: 5 });

    await db.transaction(async (tx) => {
      await tx.update(widgets).set({ stock: 7 }).where(eq(widgets.id, inserted!.id));
      await tx.insert(widgets).values({ name: 'cog' });
    });
    await expect(
      db.transaction(async (tx) => {
        await tx.insert(widgets).values({ name: 'never' });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');

    const rows = await db
      .select({ name: widgets.name, stock: widgets.stock })
      .from(widgets)
      .orderBy(widgets.name);
    expect(rows).toEqual([
      { name: 'cog', stock: 0 },
      { name: 'gear', stock: 7 },
    ]);
  });

  it('refuses non-loopback targets', async () => {
    const status = await new Promise<number | undefined>((resolve) => {
      const socket = new WebSocket(`ws://127.0.0.1:${bridge.port}/v1?address=10.1.2.3:5432`);
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode));
      socket.on('open', () => resolve(101));
      socket.on('error', () => resolve(undefined));
    });
    expect(status).toBe(403);
  });
});

describe.skipIf(!redisUrl)('Upstash Redis + Ratelimit through the REST bridge', () => {
  let bridge: UpstashBridge;
  let redis: Redis;
  const prefix = `bridge-test:${randomBytes(6).toString('hex')}`;
  const key = (name: string): string => `${prefix}:${name}`;

  beforeAll(async () => {
    bridge = await startUpstashBridge({ redisUrl });
    redis = new Redis({ url: bridge.url, token: bridge.token, enableTelemetry: false });
  });

  afterAll(async () => {
    if (redis) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    await bridge?.close();
  });

  it('sets and gets JSON and unicode values', async () => {
    const value = { name: 'héllo ✓ 🚀', tags: ['a', 'b'], n: 1.5, nested: { ok: true } };
    expect(await redis.set(key('json'), value)).toBe('OK');
    expect(await redis.get(key('json'))).toEqual(value);

    await redis.set(key('text'), 'plain text');
    expect(await redis.get(key('text'))).toBe('plain text');
    expect(await redis.get(key('missing'))).toBeNull();

    await redis.hset(key('hash'), { a: 1, b: 'two' });
    expect(await redis.hgetall(key('hash'))).toEqual({ a: 1, b: 'two' });
  });

  it('supports automaticDeserialization: false', async () => {
    const raw = new Redis({
      url: bridge.url,
      token: bridge.token,
      automaticDeserialization: false,
      enableTelemetry: false,
    });
    await raw.set(key('raw'), JSON.stringify({ a: 1 }));
    expect(await raw.get(key('raw'))).toBe('{"a":1}');
  });

  it('runs incr / expire / ttl', async () => {
    expect(await redis.incr(key('counter'))).toBe(1);
    expect(await redis.incrby(key('counter'), 4)).toBe(5);
    expect(await redis.expire(key('counter'), 10)).toBe(1);
    const ttl = await redis.ttl(key('counter'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(10);

    await redis.set(key('not-a-number'), 'abc');
    await expect(redis.incr(key('not-a-number'))).rejects.toThrow(/not an integer/);
  });

  it('runs pipelines and transactions', async () => {
    const results = await redis
      .pipeline()
      .set(key('p'), { x: 1 })
      .incr(key('pc'))
      .incr(key('pc'))
      .get(key('p'))
      .exec();
    expect(results).toEqual(['OK', 1, 2, { x: 1 }]);

    await redis.set(key('pstr'), 'abc');
    const withErrors = await redis.pipeline().incr(key('pstr')).get(key('pstr')).exec({ keepErrors: true });
    expect(withErrors[0].error).toMatch(/not an integer/);
    expect(withErrors[1]).toEqual({ error: undefined, result: 'abc' });

    const tx = await redis.multi().set(key('m'), 'v').incr(key('mc')).get(key('m')).exec();
    expect(tx).toEqual(['OK', 1, 'v']);
  });

  it('maps the client-side sha for scripts with the allow-key-locking flag', async () => {
    const script = `#!lua flags=allow-key-locking\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])`;
    const sha = await redis.scriptLoad(script);
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(await redis.evalsha(sha, [key('script')], [3])).toBe(3);
    expect(await redis.eval(script, [key('script')], [2])).toBe(5);
  });

  it('rate-limits with Ratelimit.slidingWindow(3, "10 s")', async () => {
    const ratelimit = new Ratelimit({
      redis,
      limiter: Ratelimit.slidingWindow(3, '10 s'),
      prefix: key('rl'),
    });
    const before = Date.now();
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await ratelimit.limit('user-1'));

    expect(results.map((r) => r.success)).toEqual([true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
    for (const r of results) {
      expect(r.limit).toBe(3);
      expect(r.reset).toBeGreaterThan(before);
      expect(r.reset).toBeLessThanOrEqual(Date.now() + 10_000);
      expect(r.reset % 10_000).toBe(0); // end of the current 10 s window
    }
    // A different identifier has its own budget.
    expect((await ratelimit.limit('user-2')).remaining).toBe(2);
  });

  it('refuses a wrong token', async () => {
    const intruder = new Redis({
      url: bridge.url,
      token: 'wrong-token',
      retry: false,
      enableTelemetry: false,
    });
    await expect(intruder.get(key('json'))).rejects.toThrow(/Unauthorized/);
  });

  it('can simulate the store being down', async () => {
    bridge.pause();
    await expect(redis.get(key('text'))).rejects.toThrow(/Service Unavailable/);
    bridge.resume();
    expect(await redis.get(key('text'))).toBe('plain text');
  });

  it('can hold requests until resumed', async () => {
    bridge.pause('hang');
    let settled = false;
    const pending = redis.get(key('text')).finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled).toBe(false);
    bridge.resume();
    expect(await pending).toBe('plain text');
  });
});
