/**
 * `npm run bench:faults`: a fault campaign against the Node server on a local Postgres.
 *
 * On a scratch database of the server behind DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/test; dropped at the end), with loopback traffic only:
 *   1. ingest: batches of 500 signals POSTed to the Node server (its own process) while keyed
 *      reads run beside them; backends are terminated (pg_terminate_backend) inside ingest
 *      transactions, and the server is killed (kill -9) mid-ingest and started again; every
 *      failed batch is retried as a client would;
 *   2. dispatch: a dispatcher process delivers the signals to webhooks on a local receiver and is
 *      killed (kill -9) mid-dispatch several times; each restart runs as the next cron run would,
 *      past the lease the killed run held;
 *   3. checks: (webhook, signal) pairs expected vs delivered, repeats under the same and under a
 *      new delivery id, partial batches, aggregate rows against a recount, 5xx by kind, process
 *      exits nobody asked for, and seconds until the service answered again after each fault.
 * Every loop is bounded in count and time. Exits 1 when an invariant fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { loadConfig } from '../src/config';
import type { DatabaseHandle } from '../src/db/client';
import { postgresDatabase } from '../src/db/node';
import { consoleLogger } from '../src/deps';
import { rebuildAggregates } from '../src/ingest/aggregates';
import { issueKeyForEmail } from '../src/keys/service';
import { generateEncryptionKey } from '../src/webhooks/crypto';
import { dispatchWebhooks } from '../src/webhooks/dispatch';
import { createWebhook } from '../src/webhooks/service';

const BATCHES = 8;
const BATCH_SIZE = 500;
const WEBHOOKS = 12;
const DISPATCHER_KILLS = 3;
/** Batches whose ingest transaction gets its backend terminated, and the one whose server is killed. */
const TERMINATE_AT = new Set([1, 3, 6]);
const KILL_SERVER_AT = 4;
const ADMIN_TOKEN = 'faults-admin-token-0123456789abcdef';
const AGGREGATES = [
  'signal_hourly',
  'signal_country_hourly',
  'signal_country_daily',
  'signal_totals',
  'source_coverage',
];
const MINUTE = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The dispatcher process: passes back to back on a clock `CLOCK_OFFSET_MS` ahead, until killed. */
async function dispatcherProcess(): Promise<void> {
  const offset = Number(process.env.CLOCK_OFFSET_MS ?? 0);
  const database = await postgresDatabase(process.env.DATABASE_URL!);
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    WEBHOOK_ALLOW_INSECURE: 'true',
    WEBHOOK_ENCRYPTION_KEY: process.env.WEBHOOK_ENCRYPTION_KEY,
  });
  const until = Date.now() + 3 * MINUTE;
  while (Date.now() < until) {
    await dispatchWebhooks(
      {
        db: database.db,
        config,
        now: () => new Date(Date.now() + offset),
        fetch: globalThis.fetch.bind(globalThis),
        log: consoleLogger('silent'),
      },
      { concurrency: 3, settleMs: 0 },
    );
    process.send?.('pass');
    await sleep(100);
  }
  await database.close();
}

interface Delivery {
  deliveryId: string;
  webhookId: string;
  signalIds: string[];
}

function startReceiver() {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const parsed = JSON.parse(body) as { webhook_id: string; signals: { id: string }[] };
      // A short acknowledgement delay keeps deliveries in flight long enough to be killed mid-way.
      setTimeout(() => {
        deliveries.push({
          deliveryId: String(req.headers['webhook-id']),
          webhookId: parsed.webhook_id,
          signalIds: parsed.signals.map((s) => s.id),
        });
        res.writeHead(204).end();
      }, 30);
    });
  });
  return new Promise<{ url: string; deliveries: Delivery[]; close(): void }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
        deliveries,
        close: () => server.close(),
      }),
    ),
  );
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Counts by kind: `503 service_unavailable`, `connection refused`, … */
class Tally {
  readonly counts = new Map<string, number>();
  add(kind: string): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
  }
  toString(): string {
    return [...this.counts].map(([kind, n]) => `${kind}: ${n}`).join(', ') || 'none';
  }
}

async function main(): Promise<void> {
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const name = `faults_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const scratchUrl = url.toString();
  const started = Date.now();
  let database: DatabaseHandle | undefined;
  const children = new Set<ChildProcess>();
  const receiver = await startReceiver();
  try {
    database = await postgresDatabase(scratchUrl, { migrate: true });
    const db = database.db;
    const operator = new pg.Client({ connectionString: scratchUrl });
    await operator.connect();
    const encryptionKey = generateEncryptionKey();
    const fivexx = new Tally();
    const recoveries: { fault: string; seconds: number }[] = [];
    let unexpectedExits = 0;
    /** Processes this campaign stopped itself (kill -9, or SIGTERM at the end). */
    const stopped = new WeakSet<ChildProcess>();
    const stop = (child: ChildProcess, signal: NodeJS.Signals) => {
      stopped.add(child);
      child.kill(signal);
    };

    // Webhooks first: they are owed every signal ingested after them.
    for (let i = 0; i < WEBHOOKS; i++) {
      const key = await issueKeyForEmail(db, `faults-${i}-${name}@bench.example.org`, 'pro', 'faults');
      await createWebhook(
        db,
        key.id,
        { url: `${receiver.url}/${i}`, secret: 'faults-secret-0123456789' },
        encryptionKey,
      );
    }
    const reader = await issueKeyForEmail(db, `reader-${name}@bench.example.org`, 'pro', 'faults');

    // ---- 1. the Node server, ingest under faults --------------------------------------------
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let server: ChildProcess | undefined;
    const startServer = () => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
        env: {
          ...process.env,
          DATABASE_URL: scratchUrl,
          PORT: String(port),
          ADMIN_TOKEN,
          WEBHOOK_ENCRYPTION_KEY: encryptionKey,
          LOG_LEVEL: 'silent',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
      children.add(child);
      child.on('exit', (code, signal) => {
        children.delete(child);
        if (!stopped.has(child)) {
          unexpectedExits += 1;
          console.log(
            `  server exited on its own (${signal ?? code}): ${stderr.split('\n').slice(-4).join(' | ')}`,
          );
        }
      });
      server = child;
    };
    const answers = async (): Promise<boolean> =>
      fetch(`${base}/api/v1/health`, { signal: AbortSignal.timeout(2_000) }).then(
        (res) => res.status === 200,
        () => false,
      );
    /** Seconds from `since` until the server answers health with 200 (bounded to 60 s). */
    const recovery = async (since: number): Promise<number> => {
      for (const until = Date.now() + 60_000; Date.now() < until; await sleep(100)) {
        if (await answers()) return (Date.now() - since) / 1000;
      }
      throw new Error('the server did not answer again within 60 s');
    };
    startServer();
    await recovery(Date.now());

    // Keyed reads beside the ingest, counting what they get.
    let reading = true;
    let reads = 0;
    const readLoop = (async () => {
      while (reading) {
        try {
          const res = await fetch(`${base}/api/v1/signals?limit=20`, {
            headers: { 'X-Api-Key': reader.key },
            signal: AbortSignal.timeout(10_000),
          });
          reads += 1;
          if (res.status >= 500)
            fivexx.add(`${res.status} ${(await res.json<{ code: string }>()).code} (read)`);
          else await res.arrayBuffer();
        } catch {
          fivexx.add('no answer (read, server down)');
        }
        await sleep(50);
      }
    })();

    /** The pid of a backend running the signals insert, within 60 s. */
    const insertingBackend = async (): Promise<number | null> => {
      for (const until = Date.now() + 60_000; Date.now() < until; await sleep(20)) {
        const { rows } = await operator.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
             AND state = 'active' AND query ILIKE 'insert into "signals"%'`,
        );
        if (rows[0]) return rows[0].pid;
      }
      return null;
    };
    const batchCount = async (b: number) =>
      (
        await operator.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM signals WHERE source_url LIKE $1`,
          [`https://faults.example.com/${name}/${b}/%`],
        )
      ).rows[0]!.n;

    let partialBatches = 0;
    let terminated = 0;
    let serverKills = 0;
    let ingestAttempts = 0;
    const layers = ['military', 'cyber', 'economic', 'disaster', 'political', 'criminal', 'health'];
    for (let b = 0; b < BATCHES; b++) {
      const items = Array.from({ length: BATCH_SIZE }, (_, i) => ({
        threat_layer: layers[(b + i) % layers.length],
        significance_score: ((b * 7 + i) % 90) / 10 + 1,
        signal_valence: i % 3 ? 'update' : 'crisis',
        title: `Fault campaign signal ${b}-${i}`,
        content_display: `A signal written for the fault campaign, batch ${b}, item ${i}.`,
        country_codes: [['UA', 'PL', 'FR', 'NG', 'BR'][i % 5]],
        published_at: new Date(Date.UTC(2026, 10, 20 + (i % 5), i % 24)).toISOString(),
        source_url: `https://faults.example.com/${name}/${b}/${i}`,
        source: { name: `Faults Wire ${b % 3}`, tier: 'core' },
      }));
      let fault: Promise<void> | null = null;
      for (let attempt = 0; attempt < 10; attempt++) {
        ingestAttempts += 1;
        if (attempt === 0 && TERMINATE_AT.has(b)) {
          fault = (async () => {
            const pid = await insertingBackend();
            if (pid === null) return;
            const at = Date.now();
            await operator.query('SELECT pg_terminate_backend($1)', [pid]);
            terminated += 1;
            recoveries.push({ fault: `backend terminated (batch ${b})`, seconds: await recovery(at) });
          })();
        } else if (attempt === 0 && b === KILL_SERVER_AT) {
          fault = (async () => {
            if ((await insertingBackend()) === null) return;
            const at = Date.now();
            stop(server!, 'SIGKILL');
            serverKills += 1;
            await sleep(200);
            startServer();
            recoveries.push({ fault: `server killed mid-ingest (batch ${b})`, seconds: await recovery(at) });
          })();
        }
        let status = 0;
        try {
          const res = await fetch(`${base}/api/v1/admin/signals`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ADMIN_TOKEN}` },
            body: JSON.stringify(items),
            signal: AbortSignal.timeout(120_000),
          });
          status = res.status;
          const body = await res.json<{ code?: string; accepted?: number }>();
          if (status >= 500) fivexx.add(`${status} ${body.code} (ingest)`);
        } catch {
          fivexx.add('no answer (ingest, server down)');
        }
        await fault;
        fault = null;
        const stored = await batchCount(b);
        if (stored !== 0 && stored !== BATCH_SIZE) partialBatches += 1;
        if (status === 200 && stored === BATCH_SIZE) break;
        if (stored === BATCH_SIZE) break; // committed, but the answer was lost with the process
        await recovery(Date.now());
      }
      if ((await batchCount(b)) !== BATCH_SIZE) throw new Error(`batch ${b} never landed`);
    }
    reading = false;
    await readLoop;
    stop(server!, 'SIGTERM');
    await new Promise((resolve) => server!.once('exit', resolve));
    const totalSignals = BATCHES * BATCH_SIZE;

    // ---- 2. the dispatcher, killed mid-dispatch ----------------------------------------------
    const expected = WEBHOOKS * totalSignals;
    const pairs = new Map<string, Set<string>>(); // "webhook signal" → delivery ids
    const delivered = () => {
      pairs.clear();
      for (const d of receiver.deliveries)
        for (const s of d.signalIds) {
          const key = `${d.webhookId} ${s}`;
          if (!pairs.has(key)) pairs.set(key, new Set());
          pairs.get(key)!.add(d.deliveryId);
        }
      return pairs.size;
    };
    let dispatcherKills = 0;
    for (let run = 0; run <= DISPATCHER_KILLS; run++) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'bench/faults.ts', '--dispatcher'], {
        env: {
          ...process.env,
          DATABASE_URL: scratchUrl,
          WEBHOOK_ENCRYPTION_KEY: encryptionKey,
          // Each restart runs as the next cron run would: past the 5-minute lease of the killed one.
          CLOCK_OFFSET_MS: String(run * 6 * MINUTE),
        },
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      children.add(child);
      const exited = new Promise<void>((resolve) =>
        child.on('exit', (code, signal) => {
          children.delete(child);
          if (!stopped.has(child)) {
            unexpectedExits += 1;
            console.log(`  dispatcher exited on its own (${signal ?? code})`);
          }
          resolve();
        }),
      );
      const before = receiver.deliveries.length;
      const until = Date.now() + 90_000;
      if (run < DISPATCHER_KILLS) {
        // Mid-dispatch: a few deliveries of this run acknowledged, more in flight.
        while (receiver.deliveries.length < before + 5 + run * 3 && Date.now() < until) await sleep(5);
        stop(child, 'SIGKILL');
        dispatcherKills += 1;
      } else {
        while (delivered() < expected && Date.now() < until) await sleep(200);
        stop(child, 'SIGTERM');
      }
      await exited;
    }

    // ---- 3. checks ---------------------------------------------------------------------------
    const reached = delivered();
    const deliveredPairs = [...pairs.values()];
    const sameIdRepeats = receiver.deliveries.reduce((n, d) => n + d.signalIds.length, 0) - reached;
    const newIdRepeats = deliveredPairs.filter((ids) => ids.size > 1).length;
    // Rows keyed by their non-numeric columns; sums compared to float precision (Postgres adds
    // float scores in whatever order it scans them, so a recount may differ in the last bits).
    const snapshot = async () => {
      const rows = new Map<string, number[]>();
      for (const table of AGGREGATES) {
        const { rows: found } = await operator.query<Record<string, unknown>>(`SELECT * FROM ${table}`);
        for (const row of found) {
          const entries = Object.entries(row);
          const isNumber = (v: unknown) =>
            typeof v === 'number' || (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v));
          const key = `${table} ${JSON.stringify(entries.filter(([, v]) => !isNumber(v)))}`;
          rows.set(
            key,
            entries.filter(([, v]) => isNumber(v)).map(([, v]) => Number(v)),
          );
        }
      }
      return rows;
    };
    const maintained = await snapshot();
    await rebuildAggregates(db);
    const recounted = await snapshot();
    const differing: string[] = [];
    const close = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));
    for (const key of new Set([...maintained.keys(), ...recounted.keys()])) {
      const [a, b] = [maintained.get(key), recounted.get(key)];
      if (!a || !b || a.length !== b.length || a.some((v, i) => !close(v, b[i]!)))
        differing.push(`${key}: ${JSON.stringify(a)} vs recount ${JSON.stringify(b)}`);
    }
    const aggregateDiffs = differing.length;
    for (const example of differing.slice(0, 3)) console.log(`  differs: ${example}`);
    const [{ n: storedSignals }] = (
      await operator.query<{ n: number }>('SELECT count(*)::int AS n FROM signals')
    ).rows as [{ n: number }];
    await operator.end();

    const lost = expected - reached;
    const lines = [
      `Fault campaign on ${url.host}, database ${name} (dropped after), ${((Date.now() - started) / 1000).toFixed(0)} s`,
      ``,
      `faults injected`,
      `  backends terminated inside ingest transactions   ${terminated}`,
      `  server killed (kill -9) mid-ingest                ${serverKills}`,
      `  dispatcher killed (kill -9) mid-dispatch          ${dispatcherKills}`,
      `ingest`,
      `  batches x signals                                 ${BATCHES} x ${BATCH_SIZE} (${ingestAttempts} attempts)`,
      `  signals stored                                    ${storedSignals} of ${totalSignals}`,
      `  partial batches seen after any attempt            ${partialBatches}`,
      `  keyed reads beside the ingest                     ${reads}`,
      `webhooks (${WEBHOOKS} webhooks, every signal owed to each)`,
      `  (webhook, signal) pairs expected                  ${expected}`,
      `  delivered                                         ${reached}`,
      `  lost                                              ${lost}`,
      `  repeats under the same delivery id (retries)      ${sameIdRepeats}`,
      `  repeats under a new delivery id                   ${newIdRepeats}`,
      `aggregates`,
      `  rows differing from a recount                     ${aggregateDiffs}`,
      `5xx and refused answers by kind                     ${fivexx.toString()}`,
      `process exits nobody asked for                      ${unexpectedExits}`,
      `seconds until the server answered again`,
      ...recoveries.map((r) => `  ${r.fault.padEnd(48)}  ${r.seconds.toFixed(1)}`),
    ];
    console.log(lines.join('\n'));
    const ok =
      lost === 0 &&
      newIdRepeats === 0 &&
      partialBatches === 0 &&
      aggregateDiffs === 0 &&
      unexpectedExits === 0;
    console.log(
      `\n${ok ? 'OK' : 'FAILED'}: 0 lost, 0 repeats under a new id, 0 partial batches, 0 aggregate differences, 0 exits expected.`,
    );
    process.exitCode = ok ? 0 : 1;
  } finally {
    for (const child of children) child.kill('SIGKILL');
    receiver.close();
    await database?.close();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

if (process.argv.includes('--dispatcher')) await dispatcherProcess();
else await main();
