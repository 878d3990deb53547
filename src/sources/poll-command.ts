import type { Config } from '../config';
import { liveDataDir, nodeDeps, openDatabase, openStore } from '../node-runtime';
import { nodeEncryptionKey } from '../webhooks/node-key';
import { runCycle, type CycleSummary } from './cycle';
import { ensureCatalogue } from './poll-state';

/**
 * `npm run cli -- sources poll [--source NAME]`: one live-data run now on the server's database
 * (with LIVE_SOURCES=true, the live one under `DATA_DIR`-live): the due sources, or only NAME
 * whether due or not, then a webhook dispatcher pass. A database without sources gets the
 * catalogue first, as the server and the cron do.
 */
export async function pollNow(config: Config, options: { source?: string } = {}): Promise<CycleSummary> {
  const live = config.LIVE_SOURCES ? { ...config, DATA_DIR: liveDataDir(config) } : config;
  const withKey = { ...live, WEBHOOK_ENCRYPTION_KEY: nodeEncryptionKey(live), DB_STATEMENT_TIMEOUT_MS: 0 };
  const database = await openDatabase(withKey);
  try {
    const deps = nodeDeps(withKey, database.db, openStore(withKey));
    await ensureCatalogue(database.db);
    return await runCycle(deps, { source: options.source });
  } finally {
    await database.close();
  }
}
