import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, suiteDataDirs } from '../support/server-process';
import { createScratchDatabase, testDatabaseUrl, type ScratchDatabase } from '../support/services';

const TOKEN = 'startup-admin-token-0123456789abcdef';
const KEY = /sig_[A-Za-z0-9]{40}/;

describe('the Node server start-up banner', () => {
  const dataDir = suiteDataDirs('startup-');

  it('on the embedded demo database prints the admin token and a ready demo key', async () => {
    const dir = dataDir();
    const output = await startServer({ DATA_DIR: dir, ADMIN_TOKEN: TOKEN });
    expect(output).toContain(`Admin token:  ${TOKEN}`);
    expect(output).toMatch(new RegExp(`Demo API key: ${KEY.source}`));
    expect(existsSync(join(dir, 'demo-key'))).toBe(true);
  }, 120_000);

  // Reported as skipped, with the reason in its name, when there is no Postgres to start against.
  const withPostgres = testDatabaseUrl() ? describe : describe.skip;
  withPostgres(
    `with DATABASE_URL${testDatabaseUrl() ? '' : ' (skipped: TEST_DATABASE_URL is not set)'}`,
    () => {
      let scratch: ScratchDatabase;
      afterAll(async () => {
        await scratch?.drop();
      });

      it('prints neither the admin token nor a key, and issues no demo key', async () => {
        scratch = await createScratchDatabase(testDatabaseUrl()!);
        const dir = dataDir();
        const output = await startServer({ DATA_DIR: dir, ADMIN_TOKEN: TOKEN, DATABASE_URL: scratch.url });
        expect(output).toContain('Connecting to DATABASE_URL');
        expect(output).toContain('Admin token:  from ADMIN_TOKEN (not printed)');
        expect(output).not.toContain(TOKEN);
        expect(output).not.toMatch(KEY);
        expect(existsSync(join(dir, 'demo-key'))).toBe(false);
        const client = new pg.Client({ connectionString: scratch.url });
        await client.connect();
        try {
          const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys');
          expect(rows[0]!.n).toBe(0);
        } finally {
          await client.end();
        }
      }, 120_000);
    },
  );
});
