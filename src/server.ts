import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig, type Config } from './config';
import type { Database } from './db/client';
import { isEmpty, seedDemo } from './ingest/seed';
import { hashKey } from './keys/key';
import { findKeyByHash, issueKeyForEmail } from './keys/service';
import {
  adminToken,
  liveAwareConfig,
  nodeDeps,
  openDatabase,
  openStore,
  resetDemoDatabase,
  serveApp,
  startLiveSources,
} from './node-runtime';
import { nodeEncryptionKey } from './webhooks/node-key';
import { startDispatchTimer } from './webhooks/schedule';

const DEMO_EMAIL = 'demo@signal-intel.local';

/** Addresses that mean "every interface": a browser reaches them as localhost. */
const WILDCARD = new Set(['0.0.0.0', '::', '']);

/** The host a URL on this machine uses for the bound address. */
function reachableHost(host: string): string {
  if (WILDCARD.has(host)) return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** A ready demo key: the one kept under DATA_DIR while it is still valid, else a new pro key. */
async function demoKey(db: Database, config: Config): Promise<string> {
  const file = join(config.DATA_DIR, 'demo-key');
  if (existsSync(file)) {
    const saved = readFileSync(file, 'utf8').trim();
    const record = await findKeyByHash(db, hashKey(saved));
    if (record && !record.revoked) return saved;
  }
  const issued = await issueKeyForEmail(db, DEMO_EMAIL, 'pro', 'demo');
  writeFileSync(file, `${issued.key}\n`, { mode: 0o600 });
  return issued.key;
}

async function main() {
  let config: Config;
  try {
    config = loadConfig(process.env);
    if (process.argv.includes('--reset-demo')) console.log(`Removed ${resetDemoDatabase(config)}/.`);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  config = liveAwareConfig(config);
  config = { ...config, ADMIN_TOKEN: adminToken(config), WEBHOOK_ENCRYPTION_KEY: nodeEncryptionKey(config) };
  const embedded = !config.DATABASE_URL;
  console.log(
    embedded ? `Opening the embedded database in ${config.DATA_DIR}/ …` : 'Connecting to DATABASE_URL …',
  );
  const database = await openDatabase(config);
  const deps = nodeDeps(config, database.db, openStore(config));

  if (embedded && config.SEED && !config.LIVE_SOURCES && (await isEmpty(database.db))) {
    console.log('Loading demo data (first start only) …');
    const result = await seedDemo(database.db, { now: new Date() });
    console.log(`Loaded ${result.accepted} demo signals.`);
  }
  // The demo key and the admin token are printed only for the embedded demo database: on a real
  // Postgres (DATABASE_URL) nothing secret goes to a log, and no demo key is issued at all.
  const key = embedded ? await demoKey(database.db, config) : null;
  const running = await serveApp(deps, config.PORT);
  const dispatcher = config.LIVE_SOURCES ? await startLiveSources(deps) : startDispatchTimer(deps);
  const base = config.PUBLIC_BASE_URL ?? `http://${reachableHost(running.host)}:${running.port}`;
  const bound = `${running.host.includes(':') ? `[${running.host}]` : running.host}:${running.port}`;
  const listening = `Signal Intelligence API listening on ${bound} (${WILDCARD.has(running.host) ? 'every interface: reachable from other machines; HOST=127.0.0.1 keeps it local' : 'set HOST=0.0.0.0 to accept other machines'})`;
  const adminSource = process.env.ADMIN_TOKEN
    ? 'from ADMIN_TOKEN (not printed)'
    : `generated into ${join(config.DATA_DIR, 'admin-token')} (not printed)`;

  console.log(
    key
      ? `
${listening}
  Base URL:     ${base}
  Docs:         ${base}/api/v1/docs
  Admin token:  ${config.ADMIN_TOKEN}
  Demo API key: ${key}  (pro tier)

Try:
  curl -H "X-Api-Key: ${key}" "${base}/api/v1/signals?layers=cyber,military&min_score=7&distinct=event&limit=5"
`
      : `
${listening}
  Base URL:     ${base}
  Docs:         ${base}/api/v1/docs
  Admin token:  ${adminSource}
`,
  );

  const shutdown = async () => {
    await dispatcher.stop();
    await running.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}

await main();
