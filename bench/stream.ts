/**
 * `npm run bench:stream` (and part of `npm run bench`): 2,000 concurrent live streams on the
 * Node server while 100 signals per second are ingested through the admin API. Prints the
 * delivery latency (p50, p99), the server's memory per open stream and its CPU per delivered
 * event. On Postgres, latency runs from the commit: the bench LISTENs to the NOTIFY each ingest
 * transaction sends at commit (its payload is the transaction's start, the signals' updated_at).
 * On PGlite it runs from the transaction's start, so it also counts the transaction itself.
 * With BENCH_DATABASE_URL (or TEST_DATABASE_URL) the server runs on a scratch database of that
 * Postgres, created and dropped here; without, on PGlite (which ingests only some tens of signals
 * per second on a loaded 2-core machine, so the rate is not reached there).
 * BENCH_STREAMS (2000), BENCH_RATE (signals/s, 100), BENCH_SECONDS (20).
 */
import { fork } from 'node:child_process';
import pg from 'pg';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 2000);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const BATCHES_PER_SECOND = 10;

interface Stats {
  cpu: NodeJS.CpuUsage;
  rss: number;
  heap: number;
}

/** A scratch database on the given Postgres, and how to drop it. */
async function scratchDatabase(url: string) {
  const name = `bench_stream_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const scratch = new URL(url);
  scratch.pathname = `/${name}`;
  return {
    url: scratch.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

const postgres = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const scratch = postgres ? await scratchDatabase(postgres) : undefined;
const server = fork(new URL('./serve-stream.ts', import.meta.url).pathname, [], {
  execArgv: ['--import', 'tsx', '--expose-gc'],
  env: {
    ...process.env,
    BENCH_STREAM_KEYS: String(Math.ceil(STREAMS / 5)),
    ...(scratch ? { DATABASE_URL: scratch.url } : {}),
  },
});
const ready = await new Promise<{ url: string; admin: string; keys: string[] }>((resolve) =>
  server.once('message', (m) => resolve(m as never)),
);
const stats = () =>
  new Promise<Stats>((resolve) => {
    server.once('message', (m) => resolve(m as Stats));
    server.send('stats');
  });
const latencies: number[] = [];
/** Commit time (ms) by transaction start (the signals' updated_at, ms): from the NOTIFY. */
const commits = new Map<number, number>();
const listener = scratch ? new pg.Client({ connectionString: scratch.url }) : undefined;
if (listener) {
  await listener.connect();
  listener.on('notification', (n) => commits.set(Date.parse(n.payload!), Date.now()));
  await listener.query('LISTEN signal_changes');
}

const clients = fork(new URL('./stream-clients.ts', import.meta.url).pathname, [], {
  execArgv: ['--import', 'tsx'],
  env: { ...process.env, BENCH_URL: ready.url },
});
clients.once('exit', (code) => {
  if (code === 0) return;
  console.error(`stream bench: the clients' process exited with ${code}`);
  server.kill('SIGTERM');
  process.exit(1);
});
/** Sends `message` to the clients' process and resolves with its answer. */
const ask = <T>(message: object) =>
  new Promise<T>((resolve) => {
    clients.once('message', (m) => resolve(m as T));
    clients.send(message);
  });

let serial = 0;
const item = () => {
  serial += 1;
  return {
    threat_layer: 'cyber',
    significance_score: 5,
    signal_valence: 'crisis',
    title: `Bench stream item ${serial} k${serial.toString(36)}q`,
    content_display: `Bench stream report ${serial}.`,
    country_codes: ['FR'],
    published_at: new Date(Date.now() - 3_600_000).toISOString(),
    source_url: `https://bench-stream.example.com/${serial}`,
    source: { name: 'Bench Stream Wire' },
  };
};

async function ingest(count: number) {
  const res = await fetch(`${ready.url}/api/v1/admin/signals`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ready.admin}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(Array.from({ length: count }, item)),
  });
  if (res.status !== 200) throw new Error(`ingest answered ${res.status}`);
  await res.arrayBuffer();
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

const idle = await stats();
await ask({ open: Array.from({ length: STREAMS }, (_, i) => ready.keys[Math.floor(i / 5)]!) });
const open = await stats();
console.log(`stream bench: ${STREAMS} streams open; ingesting ${RATE} signals/s for ${SECONDS} s …`);

clients.send({ measure: true });
const perBatch = RATE / BATCHES_PER_SECOND;
const started = Date.now();
let sent = 0;
const inFlight = new Set<Promise<void>>();
for (let batch = 0; batch < SECONDS * BATCHES_PER_SECOND; batch += 1) {
  const due = started + batch * (1000 / BATCHES_PER_SECOND);
  const wait = due - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  // On schedule whatever the last ingest's time, with a few in flight at once, as several
  // sources polling together would be.
  if (inFlight.size >= 4) await Promise.race(inFlight);
  const request = ingest(perBatch).finally(() => inFlight.delete(request));
  inFlight.add(request);
  sent += perBatch;
}
await Promise.all(inFlight);
const ingestSeconds = (Date.now() - started) / 1000;
const expected = sent * STREAMS;
// Time for the last events to arrive, then the clients' counts.
await new Promise((resolve) => setTimeout(resolve, 3_000));
const done = await stats();
const { delivered, received } = await ask<{ delivered: number; received: [number, number][] }>({
  report: true,
});
const elapsed = (Date.now() - started) / 1000;

for (const [updatedAt, at] of received) latencies.push(at - (commits.get(updatedAt) ?? updatedAt));
const sorted = latencies.sort((a, b) => a - b);
const cpuMicros = done.cpu.user + done.cpu.system - (open.cpu.user + open.cpu.system);
const lines = [
  `stream bench (${STREAMS} streams, ${RATE} signals/s for ${SECONDS} s, Node server on ${scratch ? 'Postgres' : 'embedded PGlite'})`,
  `  ingested         ${sent} signals in ${ingestSeconds.toFixed(1)} s (${(sent / ingestSeconds).toFixed(0)}/s)`,
  `  delivered        ${delivered} events for ${expected} signal deliveries (updates of linked signals count too) in ${elapsed.toFixed(1)} s`,
  `  latency          (on ${received.length} events of every 20th stream) p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms, max ${sorted.at(-1)} ms (from the ${listener ? 'commit' : "ingest transaction's start"})`,
  `  memory / stream  ${((open.heap - idle.heap) / STREAMS / 1024).toFixed(1)} KiB heap+external, ${((open.rss - idle.rss) / STREAMS / 1024).toFixed(1)} KiB RSS`,
  `  CPU / event      ${(cpuMicros / Math.max(1, delivered)).toFixed(1)} µs (server user+system while ingesting, ingest included: ${(cpuMicros / 1e6).toFixed(1)} s CPU)`,
];
console.log(lines.join('\n'));
await listener?.end();
server.kill('SIGTERM');
await new Promise((resolve) => server.once('exit', resolve));
await scratch?.drop();
const p99 = percentile(sorted, 99);
if (!(p99 <= 1000) || delivered < expected) {
  console.error(`stream bench: ${delivered < expected ? 'events missing' : `p99 ${p99} ms over 1 s`}`);
  process.exitCode = 1;
}
