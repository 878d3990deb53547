import v8 from 'node:v8';
import vm from 'node:vm';
import autocannon from 'autocannon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchStore } from '../../bench/store';
import type { DatabaseHandle } from '../../src/db/client';
import type { Logger } from '../../src/log';
import { postgresDatabase } from '../../src/db/node';
import { generateDemoSignals } from '../../src/ingest/demo';
import { ingestSignals } from '../../src/ingest/pipeline';
import { ADMIN_TOKEN, createKey, startTestApp, type TestApp, testPglite } from '../support/harness';
import { createScratchDatabase, testDatabaseUrl, type ScratchDatabase } from '../support/services';

/** Seconds of load; ~2 minutes by default, SOAK_SECONDS to shorten locally. */
const SECONDS = Number(process.env.SOAK_SECONDS ?? 120);
const WARMUP_SECONDS = Math.min(20, Math.ceil(SECONDS / 6));
/** Heap the server may keep after a full GC beyond the warmed-up baseline. */
const HEAP_SLACK = 24 * 1024 * 1024;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const heapAfterGc = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

// A mixed load on loopback against the real Node server: reads with every filter, detail,
// CSV, public endpoints, ingest writes, and a share of requests that must fail with 4xx.
describe('mixed load', () => {
  let scratch: ScratchDatabase | undefined;
  let database: DatabaseHandle;
  let app: TestApp;
  let key: string;
  let ids: string[];
  // Warnings and errors with their fields, so a failure shows what the server saw.
  const problems: unknown[] = [];
  const keepProblems: Logger = {
    info: () => {},
    warn: (message, fields) => void problems.push({ level: 'warn', message, ...fields }),
    error: (message, fields) => void problems.push({ level: 'error', message, ...fields }),
  };

  beforeAll(async () => {
    if (testDatabaseUrl()) {
      scratch = await createScratchDatabase(testDatabaseUrl()!);
      database = await postgresDatabase(scratch.url, { migrate: true });
    } else {
      database = await testPglite();
    }
    await ingestSignals(database.db, generateDemoSignals({ count: 2_000, now: new Date(), seed: 11 }));
    // The limiter still runs on every request; only its ceilings are out of the way.
    app = await startTestApp(database.db, { store: benchStore(), deps: { log: keepProblems } });
    key = (await createKey(database.db, 'pro')).key;
    const page = await (
      await app.fetch('/api/v1/signals?limit=20', { headers: { 'X-Api-Key': key } })
    ).json<{
      data: { id: string }[];
    }>();
    ids = page.data.map((s) => s.id);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await database?.close();
    await scratch?.drop();
  });

  const requests = () => {
    const auth = { 'X-Api-Key': key };
    let n = 0;
    const ingestBody = () =>
      JSON.stringify(
        generateDemoSignals({ count: 3, now: new Date(), seed: 1000 + n++ }).map((item, i) => ({
          ...item,
          source_url: `${item.source_url}#soak-${n}-${i}`,
        })),
      );
    const reads = [
      '/api/v1/signals',
      '/api/v1/signals?layers=military,cyber&min_score=6',
      '/api/v1/signals?country=UA&limit=20',
      '/api/v1/signals?search=ceasefire%20OR%20strike',
      '/api/v1/signals?bbox=30,-20,60,45&valence=crisis',
      '/api/v1/signals?offset=500&limit=100',
      '/api/v1/signals?format=csv&limit=100',
      `/api/v1/signals/${ids[0]}`,
      `/api/v1/signals/${ids[5]}`,
      '/api/v1/keys',
    ].map((path) => ({ method: 'GET' as const, path, headers: auth }));
    return [
      ...reads,
      { method: 'GET' as const, path: '/api/v1/health' },
      { method: 'GET' as const, path: '/api/v1/freshness' },
      { method: 'GET' as const, path: '/api/v1/openapi.json' },
      { method: 'GET' as const, path: '/api/v1/signals?min_score=eleven', headers: auth },
      { method: 'GET' as const, path: '/api/v1/signals' },
      { method: 'GET' as const, path: '/api/v1/signals/00000000-0000-4000-8000-000000000000', headers: auth },
      { method: 'GET' as const, path: '/no/such/route' },
      {
        method: 'POST' as const,
        path: '/api/v1/admin/signals',
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
        setupRequest: (req: Record<string, unknown>) => ({ ...req, body: ingestBody() }),
      },
    ];
  };

  it(
    `serves ${SECONDS} s of mixed traffic with zero 5xx and a bounded heap`,
    async () => {
      const run = (seconds: number) =>
        autocannon({ url: app.url, connections: 16, duration: seconds, requests: requests() });

      const warm = await run(WARMUP_SECONDS);
      expect(warm['5xx'], JSON.stringify(problems.slice(0, 5))).toBe(0);
      const baseline = heapAfterGc();

      const main = await run(SECONDS - WARMUP_SECONDS);
      const after = heapAfterGc();
      console.info(
        `mixed load: ${main.requests.total} requests, 2xx ${main['2xx']}, 4xx ${main['4xx']}, 5xx ${main['5xx']}, ` +
          `heap after GC ${(baseline / 2 ** 20).toFixed(1)} → ${(after / 2 ** 20).toFixed(1)} MiB`,
      );

      expect(main.errors + main.timeouts).toBe(0);
      expect(main['5xx'], JSON.stringify(problems.slice(0, 5))).toBe(0);
      expect(main['2xx']).toBeGreaterThan(main['4xx']);
      expect(main.requests.total).toBeGreaterThan(1000);
      expect(
        after - baseline,
        `heap after GC grew from ${(baseline / 2 ** 20).toFixed(1)} MiB to ${(after / 2 ** 20).toFixed(1)} MiB`,
      ).toBeLessThan(HEAP_SLACK);
    },
    (SECONDS + 60) * 1000,
  );
});
