/**
 * `npm run bench`: the performance budgets (docs/performance.md) on 1,000,000 signals in a real Postgres.
 *
 * For each representative /api/v1/signals query it measures, in the same run and with the same
 * node-postgres pool size: the Node server (its own process, driven by autocannon at 50
 * connections), the same SQL straight through the driver (50 concurrent callers in this
 * process), and a bare node:http handler running that SQL (its own process, autocannon).
 * Prints p50/p99/throughput, the budget ratios and each server's CPU per request, checks every
 * query's plan uses an index, and writes everything to bench/results/<time>.json.
 *
 * DATABASE_URL (default postgres://postgres@127.0.0.1:5432/bench, created when missing),
 * BENCH_DURATION seconds per measurement (default 10), BENCH_CONNECTIONS (default 50),
 * BENCH_ONLY (comma-separated scenario names, to rerun a few; `endpoints` for every endpoint,
 * `freshness` for that endpoint alone, `dispatch` for the dispatcher, `ingest` for the ingest).
 *
 * Then every endpoint, miss and hit, with each list endpoint against its own SQL (endpoints.ts),
 * the dispatcher budget: 1,000 webhooks with new signals in one run (dispatch.ts), and the ingest
 * of 1,000 news items with and without its event linking (ingest-linking.ts; `ingest`).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import pg from 'pg';
import { postgresDatabase } from '../src/db/node';
import type { Database } from '../src/db/client';
import { issueKeyForEmail } from '../src/keys/service';
import { signalPageStatement } from '../src/signals/page';
import type { SignalFilter } from '../src/signals/query';
import { benchDispatch } from './dispatch';
import { benchEndpoints, type EndpointFigures } from './endpoints';
import { benchIngest } from './ingest-linking';
import { ensureDatabase, loadSignals } from './load';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/bench';
const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
/** Items per second of the ingest of 1,000 news items into 1,000,000 signals, as issue 27 measured it before its one-pass write. */
const INGEST_BEFORE = { whole: 1_391, withoutLinking: 1_711, linking: 7_418 };
const INGEST_TARGET = 2_500;
// One pool size for the app, the direct driver run and the bare handler, so only the app differs.
const POOL_MAX = 20;
const WARMUP_SECONDS = 2;
/**
 * A server is warmed for at least this many requests (in `WARMUP_SECONDS` rounds, at most
 * `WARMUP_ROUNDS`): V8 optimises a function after enough calls, not after enough seconds, and on
 * a busy machine 2 s at 60 requests per second left the app still compiling its hot path, so
 * its CPU per request counted the compiler (perf: a tenth of the samples in V8's compiler).
 */
const WARMUP_REQUESTS = 3_000;
const WARMUP_ROUNDS = 5;

interface Scenario {
  name: string;
  query: string;
  filter: SignalFilter;
  limit: number;
  offset: number;
  format: 'json' | 'csv';
}

const scenario = (name: string, query: string, filter: SignalFilter, more: Partial<Scenario> = {}) => ({
  name,
  query,
  filter,
  limit: 50,
  offset: 0,
  format: 'json' as const,
  ...more,
});

const SCENARIOS: Scenario[] = [
  scenario('no filter', 'limit=50', {}),
  scenario('layers + min_score', 'layers=military,cyber&min_score=7&limit=50', {
    layers: ['military', 'cyber'],
    minScore: 7,
  }),
  scenario('country', 'country=UA&limit=50', { country: 'UA' }),
  scenario('full-text search', 'search=ceasefire&limit=50', { search: 'ceasefire' }),
  scenario('bbox', 'bbox=44,22,53,41&limit=50', { bbox: { minLat: 44, minLng: 22, maxLat: 53, maxLng: 41 } }),
  scenario('bbox (city)', 'bbox=50.3,30.3,50.6,30.7&limit=50', {
    bbox: { minLat: 50.3, minLng: 30.3, maxLat: 50.6, maxLng: 30.7 },
  }),
  scenario('deep offset', 'limit=50&offset=5000', {}, { offset: 5000 }),
  scenario('csv', 'format=csv&limit=100', {}, { limit: 100, format: 'csv' }),
  // One signal per event: the strongest matching member of each, filters applied first.
  scenario('distinct=event', 'distinct=event&limit=50', { distinct: 'event' }),
  scenario(
    'distinct=event + layers + min_score',
    'distinct=event&layers=military,cyber&min_score=7&limit=50',
    {
      distinct: 'event',
      layers: ['military', 'cyber'],
      minScore: 7,
    },
  ),
  scenario('distinct=event + country', 'distinct=event&country=UA&limit=50', {
    distinct: 'event',
    country: 'UA',
  }),
  scenario(
    'distinct=event deep offset',
    'distinct=event&limit=50&offset=5000',
    { distinct: 'event' },
    { offset: 5000 },
  ),
];

/** The statement the app runs for `s`, bound to its values. */
function statement(db: Database, s: Scenario): { text: string; values: unknown[] } {
  const built = signalPageStatement(db, s.filter, { limit: s.limit, offset: s.offset }, s.format);
  return { text: built.sql, values: built.params };
}

interface Figures {
  p50: number;
  p99: number;
  rps: number;
  errors: number;
  /** CPU time of the server process per request, in ms (Linux only). */
  cpuMs?: number;
}

const log = (line: string) => console.log(line);

/** CPU seconds used so far by process `pid` (user + system), from /proc; undefined elsewhere. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

interface Server {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts a bench/ server script in its own Node process; resolves once it prints its URL. */
function startServer(script: string, env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL(script, import.meta.url).pathname], {
    env: { ...process.env, ...env, DATABASE_URL: url, BENCH_POOL_MAX: String(POOL_MAX) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      resolve({ url: (JSON.parse(line) as { url: string }).url, pid: child.pid!, stop });
    });
  });
}

async function cannon(target: string, headers: Record<string, string>, seconds: number) {
  return autocannon({ url: target, connections, duration: seconds, headers });
}

/** autocannon against `server` after a warm-up, with the server's CPU per request. */
async function drive(server: Server, target: string, headers: Record<string, string>): Promise<Figures> {
  let warmed = 0;
  for (let round = 0; round < WARMUP_ROUNDS && warmed < WARMUP_REQUESTS; round++) {
    warmed += (await cannon(target, headers, WARMUP_SECONDS)).requests.total;
  }
  const before = cpuSeconds(server.pid);
  const result = await cannon(target, headers, duration);
  const after = cpuSeconds(server.pid);
  return {
    p50: result.latency.p50,
    p99: result.latency.p99,
    rps: result.requests.average,
    errors: result.errors + result.timeouts + result.non2xx,
    cpuMs:
      before === undefined || after === undefined
        ? undefined
        : ((after - before) * 1000) / result.requests.total,
  };
}

/** `connections` callers looping the statement through the pool for `seconds`. */
async function direct(pool: pg.Pool, query: { text: string; values: unknown[] }, seconds = duration) {
  const latencies: number[] = [];
  let errors = 0;
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) {
        const started = performance.now();
        try {
          await pool.query(query);
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
  return { p50: at(0.5), p99: at(0.99), rps: latencies.length / seconds, errors };
}

const fmt = (f: Figures) =>
  `p50 ${f.p50.toFixed(1)} ms  p99 ${f.p99.toFixed(1)} ms  ${f.rps.toFixed(0)} req/s` +
  (f.cpuMs === undefined ? '' : `  ${f.cpuMs.toFixed(2)} ms CPU/req`) +
  (f.errors ? `  ERRORS ${f.errors}` : '');

async function main() {
  await ensureDatabase(url);
  // The load copies and indexes 1,000,000 rows: far past the request statement timeout.
  const database = await postgresDatabase(url, { migrate: true, max: POOL_MAX, statementTimeoutMs: 0 });
  const db = database.db;
  log(`Loading ${url.replace(/\/\/[^@]*@/, '//…@')} (skipped when already loaded) …`);
  const total = await loadSignals(db, log);
  log(`${total} signals.`);

  const key = (await issueKeyForEmail(db, `bench-${Date.now()}@example.org`, 'pro', 'bench')).key;
  const app = await startServer('serve-app.ts', {});
  const pool = new pg.Pool({ connectionString: url, max: POOL_MAX });

  const results = [];
  let pass = true;
  for (const s of SCENARIOS.filter((s) => !only || only.includes(s.name))) {
    const query = statement(db, s);
    const plan = (await pool.query({ text: `EXPLAIN ${query.text}`, values: query.values })).rows
      .map((r: Record<string, string>) => r['QUERY PLAN'])
      .join('\n');
    const usesIndex = /Index (Only )?Scan|Bitmap Index Scan/.test(plan) && !/Seq Scan on signals/.test(plan);

    log(`\n## ${s.name}: /api/v1/signals?${s.query}`);
    const appFigures = await drive(app, `${app.url}/api/v1/signals?${s.query}`, { 'X-Api-Key': key });
    await direct(pool, query, WARMUP_SECONDS);
    const directFigures = await direct(pool, query);
    const bare = await startServer('serve-bare.ts', { BENCH_SQL: JSON.stringify(query) });
    const bareFigures = await drive(bare, bare.url, {});
    await bare.stop();

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
      ...s,
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

  let endpoints: EndpointFigures[] | undefined;
  if (!only || only.includes('endpoints') || only.includes('freshness')) {
    const missServer = await startServer('serve-app.ts', { BENCH_CACHE: 'off' });
    const names = !only || only.includes('endpoints') ? undefined : ['freshness'];
    try {
      endpoints = await benchEndpoints(db, url, key, { miss: missServer.url, hit: app.url }, log, names);
    } finally {
      await missServer.stop();
    }
    pass &&= endpoints.every((e) => e.ok);
  }

  const dispatch = !only || only.includes('dispatch') ? await benchDispatch(db, log) : undefined;
  if (dispatch) {
    pass &&= dispatch.ok;
    log(`\n## dispatch: ${dispatch.webhooks} webhooks with new signals, one run`);
    log(
      `  ${dispatch.seconds.toFixed(1)} s (≤ 300)   ${dispatch.webhooksReached} webhooks reached, ${dispatch.signalsDelivered} signals in ${dispatch.deliveries} deliveries (${dispatch.succeeded} 2xx)   ${dispatch.matchingQueries} matching queries for ${dispatch.deliveries} batches   ${dispatch.ok ? 'OK' : 'OVER BUDGET'}`,
    );
  }

  const ingest = !only || only.includes('ingest') ? await benchIngest(db, new Date()) : undefined;
  if (ingest) {
    log(
      `\n## ingest: ${ingest.items.toLocaleString('en')} news items into ${total.toLocaleString('en')} signals`,
    );
    log(
      `  whole ingest ${ingest.ingest.toFixed(0)} items/s (≥ ${INGEST_TARGET.toLocaleString('en')}; before issue 27: ${INGEST_BEFORE.whole.toLocaleString('en')})   without linking ${ingest.withoutLinking.toFixed(0)} items/s (before: ${INGEST_BEFORE.withoutLinking.toLocaleString('en')})   linking alone ${ingest.linking.toFixed(0)} items/s (before: ${INGEST_BEFORE.linking.toLocaleString('en')})   (${ingest.accepted} stored, rolled back)   ${ingest.ingest >= INGEST_TARGET ? 'OK' : 'UNDER TARGET'}`,
    );
  }

  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  const file = new URL(`results/${new Date().toISOString().replace(/[:.]/g, '-')}.json`, import.meta.url);
  writeFileSync(
    file,
    `${JSON.stringify({ at: new Date().toISOString(), signals: total, connections, duration, poolMax: POOL_MAX, pass, results, endpoints, dispatch, ingest }, null, 2)}\n`,
  );
  log(`\n${pass ? 'All budgets hold.' : 'Some budgets are not met.'} Results: ${file.pathname}`);
  await app.stop();
  await pool.end();
  await database.close();
  process.exitCode = pass ? 0 : 1;
}

await main();
