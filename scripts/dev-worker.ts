/**
 * `npm run dev:worker`: the API Worker in workerd (`wrangler dev`) on this machine's Postgres and
 * Redis, reached through the same bridges the tests use: Postgres behind a Neon-style
 * WebSocket proxy, Redis behind an Upstash-compatible REST endpoint. So an operator can try
 * the real edge runtime, drivers included, before deploying.
 *
 * DEV_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/signal_dev, created and
 * migrated if missing) and DEV_REDIS_URL (default redis://127.0.0.1:6379) pick the services.
 * Without them it says what it needs and exits; `npm run dev` needs neither.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { queryRows } from '../src/db/client';
import { postgresDatabase } from '../src/db/node';
import { seedDemo } from '../src/ingest/seed';
import { startNeonBridge } from '../test/support/neon-bridge';
import { startUpstashBridge } from '../test/support/upstash-bridge';
import { buildDocsAssets } from '../src/docs-assets';

const databaseUrl = process.env.DEV_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/signal_dev';
const redisUrl = process.env.DEV_REDIS_URL ?? 'redis://127.0.0.1:6379';
const port = process.env.PORT ?? '8787';
const adminToken = process.env.ADMIN_TOKEN ?? randomBytes(24).toString('base64url');

async function ensureDatabase(url: string): Promise<void> {
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

await ensureDatabase(databaseUrl);
const neon = await startNeonBridge();
const upstash = await startUpstashBridge({ redisUrl, keyPrefix: 'dev' });
const vars = {
  DATABASE_URL: databaseUrl,
  NEON_WS_PROXY: `127.0.0.1:${neon.port}/v1`,
  UPSTASH_REDIS_REST_URL: upstash.url,
  UPSTASH_REDIS_REST_TOKEN: upstash.token,
  ADMIN_TOKEN: adminToken,
  WEBHOOK_ALLOW_INSECURE: 'true',
};
console.log(`admin token: ${adminToken}`);
console.log(`make a key: curl -X POST -H 'Authorization: Bearer ${adminToken}' -H 'Content-Type: application/json' \\
  -d '{"email":"you@example.org","tier":"pro"}' http://localhost:${port}/api/v1/admin/keys`);

buildDocsAssets(); // the docs page's script, served as a static asset
const worker = spawn(
  'npx',
  ['wrangler', 'dev', '--port', port, ...Object.entries(vars).flatMap(([k, v]) => ['--var', `${k}:${v}`])],
  { stdio: 'inherit', env: { ...process.env, WRANGLER_SEND_METRICS: 'false' } },
);
const stop = async () => {
  worker.kill('SIGTERM');
  await Promise.all([neon.close(), upstash.close()]);
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
worker.on('exit', () => void stop());
