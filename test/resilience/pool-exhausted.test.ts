import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client';
import { postgresDatabase } from '../../src/db/node';
import { ingestSignals } from '../../src/ingest/pipeline';
import { fixtureItems } from '../support/fixture';
import { createKey, startTestApp, type TestApp } from '../support/harness';
import { createScratchDatabase, testDatabaseUrl, type ScratchDatabase } from '../support/services';

// Overload: every pooled connection stays busy past the pool's checkout timeout. The request
// that could not get a connection is told to come back, like any other database failure.
describe.skipIf(!testDatabaseUrl())('a pool with no free connection', () => {
  let scratch: ScratchDatabase;
  let database: DatabaseHandle;
  let app: TestApp;
  let operator: pg.Client;
  let key: string;

  beforeAll(async () => {
    scratch = await createScratchDatabase(testDatabaseUrl()!);
    // One connection and no statement timeout: a statement waiting on a lock holds the pool.
    database = await postgresDatabase(scratch.url, { migrate: true, max: 1, statementTimeoutMs: 0 });
    await ingestSignals(database.db, fixtureItems());
    key = (await createKey(database.db, 'pro')).key;
    app = await startTestApp(database.db);
    operator = new pg.Client({ connectionString: scratch.url });
    await operator.connect();
  });
  afterAll(async () => {
    await operator?.end();
    await app?.close();
    await database?.close();
    await scratch?.drop();
  });

  /** Resolves once the app's connection waits on the operator's lock. */
  async function lockWaiter(): Promise<void> {
    for (const until = Date.now() + 30_000; Date.now() < until;) {
      const { rows } = await operator.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'advisory'`,
      );
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the holding statement never waited on the lock');
  }

  it('answers 503 problem+json with Retry-After, then serves once a connection is free', async () => {
    await operator.query('SELECT pg_advisory_lock(4243)');
    // Drizzle queries are lazy: `then` sends it. It takes the pool's only connection and waits.
    const holder = database.db
      .execute(sql`SELECT pg_advisory_lock(4243), pg_advisory_unlock(4243)`)
      .then(() => {});
    await lockWaiter();
    try {
      const res = await app.fetch('/api/v1/signals?limit=3', { headers: { 'X-Api-Key': key } });
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await res.json()).toMatchObject({ status: 503, code: 'service_unavailable' });
    } finally {
      await operator.query('SELECT pg_advisory_unlock(4243)');
      await holder;
    }
    const back = await app.fetch('/api/v1/signals?limit=3', { headers: { 'X-Api-Key': key } });
    expect(back.status).toBe(200);
  });
});
