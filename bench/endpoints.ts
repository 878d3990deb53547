/**
 * `npm run bench`, part 2: every endpoint on the 1,000,000-signal set, one request at a time.
 *
 * - miss: a Node server whose store never keeps a cached value (BENCH_CACHE=off), so every
 *   request computes its answer from the database;
 * - hit: a Node server with its cache, warmed on the path first (endpoints that cache
 *   nothing answer from the database here too: their "hit" is a second, warm miss);
 * - sql: for list endpoints, the statements the endpoint sent (recorded from one in-process
 *   request through a recording driver) replayed through the same driver, one request's worth
 *   at a time: the floor the endpoint is compared with (`miss p50 / sql p50`).
 *
 * Budgets: a miss under 300 ms p50, a hit under 20 ms p50.
 *
 * Both servers are warmed on each path before it is measured (`warm`): the miss server is a
 * fresh process, and its first requests on a path pay for compiling that path's code and
 * opening pool connections, which is not what a miss costs a running server. Measured this way
 * (issue 27), freshness's first 15 misses on a new process had a p50 of 73 ms and the next 45
 * about a third of that on the same loaded machine.
 */
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { queryRows, type Database } from '../src/db/client';
import * as schema from '../src/db/schema';
import { nodeDeps } from '../src/node-runtime';
import { encodeCursor, signalListFingerprint } from '../src/signals/cursor';
import { benchStore } from './store';

export interface EndpointFigures {
  name: string;
  path: string;
  miss: { p50: number; p99: number };
  hit: { p50: number; p99: number };
  sql?: { p50: number; statements: number };
  ratio?: number;
  bytes: number;
  ok: boolean;
}

const MISS_RUNS = Number(process.env.BENCH_MISS_RUNS ?? 15);
/** Requests sent to a path before it is measured: at most this many, for at most `WARM_MS`. */
const WARM_RUNS = Number(process.env.BENCH_WARM_RUNS ?? 20);
const WARM_MS = 2_000;
const HIT_RUNS = Number(process.env.BENCH_HIT_RUNS ?? 50);
const MISS_BUDGET_MS = 300;
const HIT_BUDGET_MS = 20;

const percentile = (sorted: number[], q: number) =>
  Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10;
const summary = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
};

async function timedGets(url: string, headers: Record<string, string>, runs: number) {
  const times: number[] = [];
  let bytes = 0;
  let status = 0;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers });
    bytes = (await res.arrayBuffer()).byteLength;
    times.push(performance.now() - started);
    status = res.status;
  }
  return { ...summary(times), bytes, status };
}

/** Requests `url` until `WARM_RUNS` are done or `WARM_MS` have passed, so cheap paths get many and slow ones few. */
async function warm(url: string, headers: Record<string, string>) {
  const until = performance.now() + WARM_MS;
  for (let i = 0; i < WARM_RUNS && performance.now() < until; i++) {
    await (await fetch(url, { headers })).arrayBuffer();
  }
}

/** The paths to measure, with parameters found in the data (a deep cursor, a busy entity …). */
async function endpoints(
  db: Database,
): Promise<
  { name: string; path: string; list: boolean; key: boolean; cached?: boolean; missBudgetMs?: number }[]
> {
  const [deep] = await queryRows<{ key: string }>(
    db,
    sql`SELECT json_build_array(significance_score, published_at, id)::text AS key FROM signals
        WHERE retracted_at IS NULL
        ORDER BY significance_score DESC NULLS LAST, published_at DESC NULLS LAST, id OFFSET 500000 LIMIT 1`,
  );
  const [middle] = await queryRows<{ at: string }>(
    db,
    sql`SELECT to_json(updated_at) #>> '{}' AS at FROM signals ORDER BY updated_at, id OFFSET 990000 LIMIT 1`,
  );
  const [entity] = await queryRows<{ name: string }>(
    db,
    sql`SELECT e.name FROM signal_entities se JOIN entities e ON e.id = se.entity_id
        GROUP BY e.name ORDER BY count(*) DESC LIMIT 1`,
  );
  const [one] = await queryRows<{ id: string }>(db, sql`SELECT id FROM signals LIMIT 1`);
  const cursor = encodeCursor(signalListFingerprint({}), deep!.key);
  const e = encodeURIComponent;
  return [
    { name: 'signals', path: '/api/v1/signals?limit=50', list: true, key: true },
    {
      name: 'signals cursor at 500,000',
      path: `/api/v1/signals?limit=50&cursor=${cursor}`,
      list: true,
      key: true,
    },
    { name: 'signals offset 10,000', path: '/api/v1/signals?limit=50&offset=10000', list: true, key: true },
    {
      name: 'signals updated_since',
      path: `/api/v1/signals?limit=50&updated_since=${e(middle!.at)}`,
      list: true,
      key: true,
    },
    { name: 'signals geojson', path: '/api/v1/signals?limit=50&format=geojson', list: true, key: true },
    { name: 'signals search', path: '/api/v1/signals?limit=50&search=ceasefire', list: true, key: true },
    { name: 'signal detail', path: `/api/v1/signals/${one!.id}`, list: false, key: true },
    { name: 'entity', path: `/api/v1/entity?name=${e(entity!.name)}&limit=50`, list: true, key: true },
    { name: 'snapshots', path: '/api/v1/snapshots?limit=100', list: true, key: true },
    { name: 'sources', path: '/api/v1/sources', list: true, key: true },
    { name: 'trending', path: '/api/v1/trending', list: false, key: true, cached: true },
    { name: 'compound-crises', path: '/api/v1/compound-crises', list: false, key: true, cached: true },
    { name: 'brief', path: '/api/v1/brief', list: false, key: true, cached: true },
    { name: 'stats', path: '/api/v1/stats', list: false, key: false, cached: true },
    { name: 'clusters', path: '/api/v1/clusters', list: false, key: false, cached: true },
    { name: 'clusters days=30', path: '/api/v1/clusters?days=30', list: false, key: false, cached: true },
    { name: 'feed (rss)', path: '/api/v1/feed?format=rss', list: true, key: false, cached: true },
    { name: 'export csv', path: '/api/export?format=csv', list: true, key: false, cached: true },
    { name: 'export geojson', path: '/api/export?format=geojson', list: true, key: false, cached: true },
    { name: 'embed', path: '/embed', list: false, key: false, cached: true },
    // Counters only (issue 27): its miss must not follow the size of the signals table.
    { name: 'freshness', path: '/api/v1/freshness', list: false, key: false, cached: true, missBudgetMs: 10 },
  ];
}

interface Recorded {
  text: string;
  values: unknown[];
}

/**
 * The statements one request to `path` sends, recorded by running it in-process once (after a
 * warm-up request, so the key lookup is cached as on a hot server) on a cache-less store.
 */
async function recordStatements(url: string, path: string, headers: Record<string, string>) {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const recorded: Recorded[] = [];
  let recording = false;
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  (pool as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args) => {
    if (recording) {
      const [first, second] = args as [string | { text: string; values?: unknown[] }, unknown[] | undefined];
      recorded.push(
        typeof first === 'string'
          ? { text: first, values: second ?? [] }
          : { text: first.text, values: first.values ?? second ?? [] },
      );
    }
    return query(...args);
  };
  const db = drizzle({ client: pool, schema }) as unknown as Database;
  const deps = nodeDeps(loadConfig({ LOG_LEVEL: 'silent' }), db, benchStore(undefined, { cache: false }), {
    clientIp: () => '127.0.0.1',
  });
  const app = createApp();
  const request = () => app.fetch(new Request(`http://bench.local${path}`, { headers }), { deps });
  await (await request()).arrayBuffer();
  recording = true;
  await (await request()).arrayBuffer();
  recording = false;
  return { pool, recorded };
}

/** The recorded statements of one request, replayed `runs` times through the driver. */
async function replay(pool: pg.Pool, statements: Recorded[], runs: number) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    for (const s of statements) await pool.query({ text: s.text, values: s.values });
    times.push(performance.now() - started);
  }
  return summary(times);
}

export async function benchEndpoints(
  db: Database,
  url: string,
  key: string,
  servers: { miss: string; hit: string },
  log: (line: string) => void,
  names?: string[],
): Promise<EndpointFigures[]> {
  const out: EndpointFigures[] = [];
  log(`\n## every endpoint, one request at a time (miss: ${MISS_RUNS} runs, hit: ${HIT_RUNS} runs)`);
  log('| endpoint | miss p50 / p99 ms | hit p50 / p99 ms | own SQL p50 ms | miss / SQL | answer |');
  log('|---|---|---|---|---|---|');
  for (const endpoint of (await endpoints(db)).filter((e) => !names || names.includes(e.name))) {
    // Public reads are asked for without a key, as a browser or feed reader would.
    const headers: Record<string, string> = endpoint.key ? { 'X-Api-Key': key } : {};
    await warm(`${servers.miss}${endpoint.path}`, headers);
    const miss = await timedGets(`${servers.miss}${endpoint.path}`, headers, MISS_RUNS);
    await warm(`${servers.hit}${endpoint.path}`, headers);
    const hit = await timedGets(`${servers.hit}${endpoint.path}`, headers, HIT_RUNS);
    let own: EndpointFigures['sql'];
    if (endpoint.list) {
      const { pool, recorded } = await recordStatements(url, endpoint.path, headers);
      try {
        own = { ...(await replay(pool, recorded, MISS_RUNS)), statements: recorded.length };
      } finally {
        await pool.end();
      }
    }
    const ratio = own ? Math.round((miss.p50 / Math.max(own.p50, 0.1)) * 100) / 100 : undefined;
    // The hit budget is for cached answers; an endpoint without a cache only has the miss budget.
    const ok =
      miss.status === 200 &&
      miss.p50 <= (endpoint.missBudgetMs ?? MISS_BUDGET_MS) &&
      (!endpoint.cached || hit.p50 <= HIT_BUDGET_MS);
    out.push({ name: endpoint.name, path: endpoint.path, miss, hit, sql: own, ratio, bytes: miss.bytes, ok });
    log(
      `| ${endpoint.name} | ${miss.p50} / ${miss.p99} | ${hit.p50} / ${hit.p99} | ${own ? `${own.p50} (${own.statements} stmt)` : '–'} | ${ratio ?? '–'} | ${miss.status} ${(miss.bytes / 1024).toFixed(1)} KB${ok ? '' : '  OVER BUDGET'} |`,
    );
  }
  return out;
}
