/**
 * `npm run bench`: DESIGN §7 on 1,000,000 signals in a real Postgres.
 *
 * For each representative /api/v1/signals query it measures, in the same run and with the same
 * node-postgres pool size: the Node server (autocannon, 50 connections), the same SQL straight
 * through the driver (50 concurrent callers), and a bare node:http handler running that SQL
 * (autocannon, 50 connections). Prints p50/p99/throughput and the budget ratios, checks every
 * query's plan uses an index, and writes everything to bench/results/<time>.json.
 *
 * DATABASE_URL (default postgres://postgres@127.0.0.1:5432/bench, created when missing),
 * BENCH_DURATION seconds per measurement (default 10), BENCH_CONNECTIONS (default 50).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { loadConfig } from '../src/config';
import { postgresDatabase } from '../src/db/node';
import { signals, sources } from '../src/db/schema';
import { issueKeyForEmail } from '../src/keys/service';
import { nodeDeps, serveApp } from '../src/node-runtime';
import { signalColumns, signalConditions, signalOrderFor, type SignalFilter } from '../src/signals/query';
import { benchStore } from './store';
import { ensureDatabase, loadSignals } from './load';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/bench';
const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
// One pool size for the app, the direct driver run and the bare handler, so only the app differs.
const POOL_MAX = 20;

interface Scenario {
  name: string;
  query: string;
  filter: SignalFilter;
  limit: number;
  offset: number;
}

const SCENARIOS: Scenario[] = [
  { name: 'no filter', query: 'limit=50', filter: {}, limit: 50, offset: 0 },
  {
    name: 'layers + min_score',
    query: 'layers=military,cyber&min_score=7&limit=50',
    filter: { layers: ['military', 'cyber'], minScore: 7 },
    limit: 50,
    offset: 0,
  },
  { name: 'country', query: 'country=UA&limit=50', filter: { country: 'UA' }, limit: 50, offset: 0 },
  {
    name: 'full-text search',
    query: 'search=ceasefire&limit=50',
    filter: { search: 'ceasefire' },
    limit: 50,
    offset: 0,
  },
  {
    name: 'bbox',
    query: 'bbox=44,22,53,41&limit=50',
    filter: { bbox: { minLat: 44, minLng: 22, maxLat: 53, maxLng: 41 } },
    limit: 50,
    offset: 0,
  },
  { name: 'deep offset', query: 'limit=50&offset=5000', filter: {}, limit: 50, offset: 5000 },
  { name: 'csv', query: 'format=csv&limit=100', filter: {}, limit: 100, offset: 0 },
];

interface Figures {
  p50: number;
  p99: number;
  rps: number;
  errors: number;
}

const log = (line: string) => console.log(line);

async function cannon(target: string, headers: Record<string, string>): Promise<Figures> {
  const result = await autocannon({ url: target, connections, duration, headers });
  return {
    p50: result.latency.p50,
    p99: result.latency.p99,
    rps: result.requests.average,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

/** `connections` callers looping the query through the pool for `duration` seconds. */
async function direct(pool: pg.Pool, text: string, values: unknown[]): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  const until = Date.now() + duration * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) {
        const started = performance.now();
        try {
          await pool.query({ text, values });
        } catch {
          errors++;
        }
        latencies.push(performance.now() - started);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 100) / 100;
  return { p50: at(0.5), p99: at(0.99), rps: latencies.length / duration, errors };
}

/** A bare node:http server that runs `text` per request and answers the rows as JSON. */
async function bareServer(pool: pg.Pool, text: string, values: unknown[]) {
  const server = createServer((_req, res) => {
    pool.query({ text, values }).then(
      (result) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result.rows));
      },
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const fmt = (f: Figures) =>
  `p50 ${f.p50.toFixed(1)} ms  p99 ${f.p99.toFixed(1)} ms  ${f.rps.toFixed(0)} req/s${f.errors ? `  ERRORS ${f.errors}` : ''}`;

async function main() {
  await ensureDatabase(url);
  const database = await postgresDatabase(url, { migrate: true, max: POOL_MAX });
  const db = database.db;
  log(`Loading ${url.replace(/\/\/[^@]*@/, '//…@')} (skipped when already loaded) …`);
  const total = await loadSignals(db, log);
  log(`${total} signals.`);

  const key = (await issueKeyForEmail(db, `bench-${Date.now()}@example.org`, 'pro', 'bench')).key;
  const config = { ...loadConfig({ LOG_LEVEL: 'silent' }) };
  const app = await serveApp(nodeDeps(config, db, benchStore()), 0, '127.0.0.1');
  const pool = new pg.Pool({ connectionString: url, max: POOL_MAX });

  const results = [];
  let pass = true;
  for (const scenario of SCENARIOS) {
    const built = db
      .select(signalColumns)
      .from(signals)
      .innerJoin(sources, eq(sources.id, signals.sourceId))
      .where(signalConditions(scenario.filter))
      .orderBy(...signalOrderFor(scenario.filter))
      .limit(scenario.limit + 1)
      .offset(scenario.offset)
      .toSQL();
    const plan = (await pool.query({ text: `EXPLAIN ${built.sql}`, values: built.params })).rows
      .map((r: Record<string, string>) => r['QUERY PLAN'])
      .join('\n');
    const usesIndex = /Index (Only )?Scan|Bitmap Index Scan/.test(plan) && !/Seq Scan on signals/.test(plan);

    log(`\n## ${scenario.name}: /api/v1/signals?${scenario.query}`);
    const appFigures = await cannon(
      `${app.url.replace('localhost', '127.0.0.1')}/api/v1/signals?${scenario.query}`,
      {
        'X-Api-Key': key,
      },
    );
    const directFigures = await direct(pool, built.sql, built.params);
    const bare = await bareServer(pool, built.sql, built.params);
    const bareFigures = await cannon(bare.url, {});
    await bare.close();

    const p50Ratio = appFigures.p50 / Math.max(directFigures.p50, 0.01);
    const rpsRatio = appFigures.rps / Math.max(bareFigures.rps, 0.01);
    const ok = p50Ratio <= 1.5 && rpsRatio >= 0.6 && usesIndex && appFigures.errors === 0;
    pass &&= ok;
    log(`  app     ${fmt(appFigures)}`);
    log(`  direct  ${fmt(directFigures)}`);
    log(`  bare    ${fmt(bareFigures)}`);
    log(
      `  p50 app/direct ${p50Ratio.toFixed(2)} (≤ 1.5)   throughput app/bare ${rpsRatio.toFixed(2)} (≥ 0.6)   index ${usesIndex ? 'yes' : 'NO'}   ${ok ? 'OK' : 'OVER BUDGET'}`,
    );
    results.push({
      ...scenario,
      app: appFigures,
      direct: directFigures,
      bare: bareFigures,
      p50Ratio,
      rpsRatio,
      usesIndex,
      ok,
      plan,
    });
  }

  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  const file = new URL(`results/${new Date().toISOString().replace(/[:.]/g, '-')}.json`, import.meta.url);
  writeFileSync(
    file,
    `${JSON.stringify({ at: new Date().toISOString(), signals: total, connections, duration, poolMax: POOL_MAX, pass, results }, null, 2)}\n`,
  );
  log(`\n${pass ? 'All budgets hold.' : 'Some budgets are not met.'} Results: ${file.pathname}`);
  await app.close();
  await pool.end();
  await database.close();
  process.exitCode = pass ? 0 : 1;
}

await main();
