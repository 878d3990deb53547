import type { Config } from '../config';
import type { Database } from '../db/client';
import { nodeDeps, openStore } from '../node-runtime';
import { nodeEncryptionKey } from '../webhooks/node-key';
import { runCycle, type CycleSummary } from './cycle';
import { ensureCatalogue } from './poll-state';

/**
 * `npm run cli -- sources poll [--source NAME]`: one live-data run now: the due sources, or only
 * NAME whether due or not, then a webhook dispatcher pass. A database without sources gets the
 * catalogue first, as the server and the cron do.
 */
export async function pollNow(
  config: Config,
  db: Database,
  options: { source?: string } = {},
): Promise<CycleSummary> {
  const withKey = { ...config, WEBHOOK_ENCRYPTION_KEY: nodeEncryptionKey(config) };
  await ensureCatalogue(db);
  return runCycle(nodeDeps(withKey, db, openStore(withKey)), { source: options.source });
}
