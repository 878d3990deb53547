/**
 * `npm run dev:worker`: the API Worker in workerd (`wrangler dev`) on this machine's Postgres and
 * Redis, reached through the same bridges the tests use: Postgres behind a Neon-style
 * WebSocket proxy, Redis behind an Upstash-compatible REST endpoint. So an operator can try
 * the real edge runtime, drivers included, before deploying.
 *
 * DEV_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/signal_dev, created and
 * migrated if missing) and DEV_REDIS_URL (default redis://127.0.0.1:6379) pick the services.
 * Without them it says what it needs and exits; `npm run dev` needs neither. Once the Worker
 * answers it prints a ready demo key, as `npm start` does; SIGINT or SIGTERM stops wrangler
 * and workerd with it.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { queryRows } from '../src/db/client';
import { postgresDatabase } from '../src/db/node';
import { seedDemo } from '../src/ingest/seed';
import { issueKeyForEmail } from '../src/keys/service';
import { startNeonBridge } from '../test/support/neon-bridge';
import { startUpstashBridge } from '../test/support/upstash-bridge';
import { buildDocsAssets } from '../src/docs-assets';

const databaseUrl = process.env.DEV_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/signal_dev';
const redisUrl = process.env.DEV_REDIS_URL ?? 'redis://127.0.0.1:6379';
const port = process.env.PORT ?? '8787';
const adminToken = process.env.ADMIN_TOKEN ?? randomBytes(24).toString('base64url');
const DEMO_EMAIL = 'demo@signal-intel.local';
const WRANGLER = createRequire(import.meta.url).resolve('wrangler/bin/wrangler.js');

/** Creates, migrates and seeds the database when needed; returns a ready demo key on it. */
async function ensureDatabase(url: string): Promise<string> {
  const name = new URL(url).pathname.slice(1);
  const server = new URL(url);
  server.pathname = '/postgres';
  const client = new pg.Client({ connectionString: server.toString(), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
  const database = await postgresDatabase(url, { migrate: true, max: 2 });
  try {
    const rows = await queryRows(database.db, sql`SELECT 1 FROM signals LIMIT 1`);
    if (rows.length === 0) {
      const seeded = await seedDemo(database.db, { now: new Date() });
      console.log(`loaded ${seeded.accepted} demo signals into ${name}`);
    }
    return (await issueKeyForEmail(database.db, DEMO_EMAIL, 'pro', 'dev:worker')).key;
  } finally {
    await database.close();
  }
}

/** Resolves when something accepts TCP connections at `url`'s host and port, else rejects. */
function reachable(url: string, defaultPort: number): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port || defaultPort), timeout: 3_000 });
    socket.once('connect', () => (socket.end(), resolve()));
    socket.once('timeout', () => (socket.destroy(), reject(new Error('timed out'))));
    socket.once('error', reject);
  });
}

const missing: string[] = [];
for (const [what, url, port, hint] of [
  ['PostgreSQL', databaseUrl, 5432, 'start a local PostgreSQL or set DEV_DATABASE_URL'],
  ['Redis', redisUrl, 6379, 'start a local Redis or set DEV_REDIS_URL'],
] as const) {
  await reachable(url, port).catch((error: Error) =>
    missing.push(`  ${what} at ${new URL(url).host} is not reachable (${error.message}): ${hint}`),
  );
}
if (missing.length > 0) {
  console.error(
    `npm run dev:worker runs the API Worker in workerd on a local PostgreSQL and Redis:\n${missing.join('\n')}\n` +
      'For the Node server on the embedded database, which needs neither, use npm run dev.',
  );
  process.exit(1);
}

const key = await ensureDatabase(databaseUrl);
const neon = await startNeonBridge();
const upstash = await startUpstashBridge({ redisUrl, keyPrefix: 'dev' });

// The bindings go to wrangler in a private env file, never as `--var` arguments: a command
// line is readable by every user of the machine (`ps`), and two of these are secrets.
const secretsDir = mkdtempSync(join(tmpdir(), 'dev-worker-'));
const envFile = join(secretsDir, 'worker.env');
const bindings = {
  DATABASE_URL: databaseUrl,
  NEON_WS_PROXY: `127.0.0.1:${neon.port}/v1`,
  UPSTASH_REDIS_REST_URL: upstash.url,
  UPSTASH_REDIS_REST_TOKEN: upstash.token,
  ADMIN_TOKEN: adminToken,
  WEBHOOK_ALLOW_INSECURE: 'true',
};
writeFileSync(
  envFile,
  Object.entries(bindings)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}\n`)
    .join(''),
  {
    mode: 0o600,
  },
);

buildDocsAssets(); // the docs page's script, served as a static asset
// Its own process group, so stopping it reaches wrangler's children (workerd) too.
const worker = spawn(
  process.execPath,
  [WRANGLER, 'dev', '--ip', '127.0.0.1', '--port', port, '--env-file', envFile],
  { stdio: 'inherit', detached: true, env: { ...process.env, WRANGLER_SEND_METRICS: 'false' } },
);
const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));

let stopping = false;
const stop = async (code = 0) => {
  if (stopping) return;
  stopping = true;
  if (worker.exitCode === null && worker.signalCode === null) {
    signalGroup('SIGTERM');
    const late = setTimeout(() => signalGroup('SIGKILL'), 5_000);
    await exited;
    clearTimeout(late);
  }
  // workerd may outlive wrangler by a moment: whatever is left of the group goes too.
  signalGroup('SIGKILL');
  rmSync(secretsDir, { recursive: true, force: true });
  await Promise.all([neon.close(), upstash.close()]);
  process.exit(code);
};
function signalGroup(signal: NodeJS.Signals) {
  try {
    process.kill(-worker.pid!, signal);
  } catch {
    // the group is already gone
  }
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
void exited.then(() => stop(1));

const base = `http://127.0.0.1:${port}`;
// Stopping is the only way out: an exit that skipped it would leave workerd running.
await untilHealthy(base).catch((error: unknown) => {
  console.error(String(error));
  return stop(1);
});
console.log(`
Signal Intelligence API Worker (workerd) listening on 127.0.0.1:${port}
  Docs:         ${base}/api/v1/docs
  Admin token:  ${adminToken}
  Demo API key: ${key}  (pro tier)

Try:
  curl -H "X-Api-Key: ${key}" "${base}/api/v1/signals?layers=cyber,military&min_score=7&distinct=event&limit=5"
`);

/** Resolves once the Worker answers its health check (wrangler builds first), else throws. */
async function untilHealthy(url: string) {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    if (stopping) return;
    const ok = await fetch(`${url}/api/v1/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the Worker did not answer ${url}/api/v1/health within 150 s`);
}
