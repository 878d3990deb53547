import { migrate } from 'drizzle-orm/neon-serverless/migrator';
import pg from 'pg';
import { neonDatabase, type DatabaseHandle } from '../../src/db/client';
import { MIGRATIONS_FOLDER } from '../../src/db/node';
import type { Backend } from '../support/harness';
import { configureNeon, startNeonBridge, type NeonBridge } from '../support/neon-bridge';
import { createScratchDatabase, testDatabaseUrl } from '../support/services';

let bridge: Promise<NeonBridge> | undefined;

/** Waits until the server has no session left on `name` (Neon's pool.end() returns earlier). */
export async function untilDisconnected(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    for (let i = 0; i < 100; i++) {
      const { rows } = await client.query<{ n: number }>(
        'select count(*)::int as n from pg_stat_activity where datname = $1',
        [name],
      );
      if (rows[0]!.n === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await client.end();
  }
}

/**
 * `backend.open()`, except that on the CI Postgres the scratch database is dropped only after
 * the pool's sessions are really gone. These tests open many concurrent sessions, and a forced
 * drop racing their shutdown surfaces as an unhandled FATAL 57P01 from the driver.
 */
export async function openBackend(backend: Backend): Promise<DatabaseHandle> {
  if (backend.name !== 'neon') return backend.open();
  bridge ??= startNeonBridge();
  configureNeon((await bridge).port);
  const scratch = await createScratchDatabase(testDatabaseUrl()!);
  const handle = neonDatabase(scratch.url);
  await migrate(handle.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
  return {
    db: handle.db,
    close: async () => {
      await handle.close();
      await untilDisconnected(new URL(scratch.url).pathname.slice(1));
      await scratch.drop();
      await (await bridge!).close();
      bridge = undefined;
    },
  };
}
