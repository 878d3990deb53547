import { randomUUID } from 'node:crypto';
import { migrate as migrateNeon } from 'drizzle-orm/neon-serverless/migrator';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { neonDatabase, type DatabaseHandle } from '../../src/db/client';
import { MIGRATIONS_FOLDER, postgresDatabase } from '../../src/db/node';
import { FIXTURE } from '../support/fixture';
import { admin, json, startTestApp, type TestApp } from '../support/harness';
import { configureNeon, startNeonBridge, type NeonBridge } from '../support/neon-bridge';
import { createScratchDatabase, testDatabaseUrl, type ScratchDatabase } from '../support/services';

/** Three insert chunks of 500: the backend is ended after the first one is written. */
const BATCH = 1_200;
const PARKED = 700;

/** A batch no other test shares (unique source URLs); item PARKED is the one held back. */
const batch = (tag: string) =>
  Array.from({ length: BATCH }, (_, i) => ({
    ...FIXTURE.kyivStrike,
    title: `Substation outage report ${i}`,
    source_url: `https://wire.example.com/${tag}/${i === PARKED ? 'park' : i}`,
  }));

/**
 * Test-only: a row whose URL ends in `/park` waits for advisory lock 4242 before it is
 * inserted, so the test can hold an ingest in the middle of its transaction.
 */
const PARK_TRIGGER = `
  CREATE FUNCTION park_ingest() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.source_url LIKE '%/park' THEN PERFORM pg_advisory_xact_lock(4242); END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER park BEFORE INSERT ON signals FOR EACH ROW EXECUTE FUNCTION park_ingest();`;

interface Driver {
  name: string;
  open(url: string): Promise<DatabaseHandle>;
}

let bridge: NeonBridge | undefined;

const drivers: Driver[] = [
  { name: 'node-postgres (Node server)', open: (url) => postgresDatabase(url, { migrate: true }) },
  {
    name: 'Neon serverless (Worker)',
    async open(url) {
      bridge ??= await startNeonBridge();
      configureNeon(bridge.port);
      const handle = neonDatabase(url);
      await migrateNeon(handle.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
      return handle;
    },
  },
];

// The server ends a connection while a transaction runs on it (a restart, a failover, an
// operator's pg_terminate_backend): the driver emits that as an 'error' event on the client
// checked out for the transaction, which used to have no listener and took the process down.
describe.skipIf(!testDatabaseUrl())('a backend terminated inside a transaction', () => {
  afterAll(async () => {
    await bridge?.close();
  });

  describe.each(drivers)('through $name', (driver) => {
    let scratch: ScratchDatabase;
    let database: DatabaseHandle;
    let app: TestApp;
    /** A connection of the test's own, to block, find and terminate the app's backend. */
    let operator: pg.Client;
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => void uncaught.push(error);

    beforeAll(async () => {
      scratch = await createScratchDatabase(testDatabaseUrl()!);
      database = await driver.open(scratch.url);
      app = await startTestApp(database.db);
      operator = new pg.Client({ connectionString: scratch.url });
      await operator.connect();
      await operator.query(PARK_TRIGGER);
      process.on('uncaughtException', onUncaught);
    });
    afterAll(async () => {
      process.off('uncaughtException', onUncaught);
      await operator?.end();
      await app?.close();
      await database?.close();
      await scratch?.drop();
    });

    const count = async (tag: string) =>
      (
        await operator.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM signals WHERE source_url LIKE $1',
          [`https://wire.example.com/${tag}/%`],
        )
      ).rows[0]!.n;

    /** The pid of the app's backend once it waits on the signals insert. */
    async function insertingBackend(): Promise<number> {
      for (const until = Date.now() + 120_000; Date.now() < until;) {
        const { rows } = await operator.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()
              AND query ILIKE 'insert into "signals"%' AND wait_event_type = 'Lock'`,
        );
        if (rows[0]) return rows[0].pid;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('the ingest never reached its insert');
    }

    it(
      'answers 503 with Retry-After, writes nothing of the batch, and the server serves the retry',
      { timeout: 180_000 },
      async () => {
        const tag = randomUUID();
        // The ingest parks on its second insert chunk, its first 500 rows written in its
        // transaction; its backend is terminated right there.
        // A session lock, not a transaction: pg_stat_activity is read once per transaction.
        await operator.query('SELECT pg_advisory_lock(4242)');
        const ingest = app.fetch('/api/v1/admin/signals', admin(json(batch(tag))));
        const pid = await insertingBackend();
        await operator.query('SELECT pg_terminate_backend($1)', [pid]);
        await operator.query('SELECT pg_advisory_unlock(4242)');

        const res = await ingest;
        expect(res.status).toBe(503);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(await res.json()).toMatchObject({ status: 503, code: 'service_unavailable' });
        expect(await count(tag)).toBe(0);

        // The same process answers, and the retried batch lands whole.
        expect((await app.fetch('/api/v1/health')).status).toBe(200);
        const retry = await app.fetch('/api/v1/admin/signals', admin(json(batch(tag))));
        expect(retry.status).toBe(200);
        expect(await retry.json()).toMatchObject({ accepted: BATCH, rejected: 0 });
        expect(await count(tag)).toBe(BATCH);
        expect(uncaught).toEqual([]);
      },
    );
  });
});
