import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client';
import { ingestSignals } from '../../src/ingest/pipeline';
import { flushUsage } from '../../src/keys/usage';
import { memoryStore } from '../../src/store/memory';
import type { Store } from '../../src/store/types';
import { upstashStore } from '../../src/store/upstash';
import { fixtureItems } from '../support/fixture';
import { backends, createKey, startTestApp, type TestApp } from '../support/harness';
import { testRedisUrl } from '../support/services';
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge';

/** Counts the queries the driver client runs; usage writes (after the response) are kept apart. */
function countQueries(db: DatabaseHandle['db']) {
  const client = (db as unknown as { $client: { query: (...args: unknown[]) => Promise<unknown> } }).$client;
  const original = client.query.bind(client);
  const seen: string[] = [];
  client.query = (...args: unknown[]) => {
    const first = args[0] as string | { text?: string };
    seen.push(typeof first === 'string' ? first : (first.text ?? ''));
    return original(...args);
  };
  return {
    reset: () => void seen.splice(0),
    hotPath: () => seen.filter((text) => !/requests_total/.test(text)),
  };
}

/** Counts calls through the store port (each is at most one round trip by its contract). */
function countCalls(store: Store) {
  let calls = 0;
  const counted = Object.fromEntries(
    Object.entries(store).map(([name, value]) => [
      name,
      typeof value === 'function'
        ? (...args: unknown[]) => {
            calls += 1;
            return (value as (...a: unknown[]) => unknown)(...args);
          }
        : value,
    ]),
  ) as unknown as Store;
  return { store: counted, calls: () => calls, reset: () => void (calls = 0) };
}

/** An HTTP proxy in front of the Upstash bridge that counts the requests (round trips) it forwards. */
async function countingProxy(target: string) {
  let requests = 0;
  const server = createServer((req, res) => {
    requests += 1;
    const upstream = httpRequest(
      new URL(req.url ?? '/', target),
      { method: req.method, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    reset: () => void (requests = 0),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(backends)('the hot-path budget on $name', (backend) => {
  let database: DatabaseHandle;
  let bridge: UpstashBridge | undefined;
  let proxy: Awaited<ReturnType<typeof countingProxy>> | undefined;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    database = await backend.open();
    await ingestSignals(database.db, fixtureItems());
    if (testRedisUrl()) {
      bridge = await startUpstashBridge();
      proxy = await countingProxy(bridge.url);
    }
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await proxy?.close();
    await bridge?.close();
    await database?.close();
  });

  const stores = () => [
    { name: 'memory', store: memoryStore() },
    ...(proxy
      ? [
          {
            name: 'upstash',
            store: upstashStore(
              { UPSTASH_REDIS_REST_URL: proxy.url, UPSTASH_REDIS_REST_TOKEN: bridge!.token },
              { prefix: `budget:${Date.now()}:${Math.random()}` },
            ),
          },
        ]
      : []),
  ];

  it('spends one database round trip and at most one store round trip on an authenticated read', async () => {
    for (const { name, store } of stores()) {
      const port = countCalls(store);
      const app = await startTestApp(database.db, { store: port.store });
      apps.push(app);
      const queries = countQueries(database.db);
      const { key } = await createKey(database.db, name === 'memory' ? 'free' : 'pro');
      const read = () =>
        app.fetch('/api/v1/signals?layers=cyber,military&min_score=5', { headers: { 'X-Api-Key': key } });

      // Cold: the first request of a key in this process looks it up (and loads the limiter's
      // script into Redis); the counters see that second query, so they are really counting.
      queries.reset();
      expect((await read()).status).toBe(200);
      expect(queries.hotPath(), name).toHaveLength(2);
      await flushUsage(database.db);
      queries.reset();
      port.reset();
      proxy?.reset();

      const res = await read();
      expect(res.status, name).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining'), name).not.toBeNull();
      expect(queries.hotPath(), name).toHaveLength(1);
      expect(port.calls(), name).toBe(1);
      if (name === 'upstash') expect(proxy!.requests(), name).toBe(1);
    }
  });
});
