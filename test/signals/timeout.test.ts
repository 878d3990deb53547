import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';
import { isStatementTimeout, isUnavailable } from '../../src/http/unavailable';
import { neonDatabase, queryRows, type DatabaseHandle } from '../../src/db/client';
import { postgresDatabase } from '../../src/db/node';
import { ingestSignals } from '../../src/ingest/pipeline';
import { sql } from 'drizzle-orm';
import { fixtureItems } from '../support/fixture';
import { createKey, startTestApp, type TestApp, testPglite } from '../support/harness';
import { configureNeon, startNeonBridge, type NeonBridge } from '../support/neon-bridge';
import { createScratchDatabase, testDatabaseUrl, type ScratchDatabase } from '../support/services';

/**
 * The statement timeout, for real: another session holds a lock on `signals`, so the page
 * statement waits until Postgres cancels it (57014) at the configured limit; the request answers
 * 503, and once the lock is gone the next request succeeds on the same pool. PGlite accepts the
 * setting but cannot enforce it (no timer signals in WebAssembly), so only the setting is
 * checked there.
 */
const DRIVERS = [
  {
    name: 'node-postgres',
    open: (url: string) => postgresDatabase(url, { statementTimeoutMs: 300, max: 1 }),
  },
  {
    name: 'neon',
    open: async (url: string) => neonDatabase(url, { statementTimeoutMs: 300 }),
  },
] as const;

describe.skipIf(!testDatabaseUrl()).each(DRIVERS)('statement timeout through $name', (driver) => {
  let scratch: ScratchDatabase;
  let database: DatabaseHandle;
  let bridge: NeonBridge | undefined;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    scratch = await createScratchDatabase(testDatabaseUrl()!);
    const migrated = await postgresDatabase(scratch.url, { migrate: true });
    await ingestSignals(migrated.db, fixtureItems());
    key = (await createKey(migrated.db, 'pro')).key;
    await migrated.close();
    if (driver.name === 'neon') {
      bridge = await startNeonBridge();
      configureNeon(bridge.port);
    }
    database = await driver.open(scratch.url);
    app = await startTestApp(database.db);
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
    await bridge?.close();
    await scratch?.drop();
  });

  const signalsPage = () => app.fetch('/api/v1/signals?limit=5', { headers: { 'X-Api-Key': key } });

  it('answers 503 service_unavailable with Retry-After, then serves the next request', async () => {
    expect((await signalsPage()).status).toBe(200); // the key is known and the pool warm

    const locker = new pg.Client({ connectionString: scratch.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE signals IN ACCESS EXCLUSIVE MODE');
      const res = await signalsPage();
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const body = await res.json<{ code: string; status: number; detail: string }>();
      expect(body).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect(body.detail).toMatch(/took longer/);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }

    const after = await signalsPage();
    expect(after.status).toBe(200);
    expect((await after.json<{ data: unknown[] }>()).data).toHaveLength(5);
    const [setting] = await queryRows<{ statement_timeout: string }>(
      database.db,
      sql`SHOW statement_timeout`,
    );
    expect(setting!.statement_timeout).toBe('300ms');
  });

  it('lets an ingest wait past the read timeout (writes get 60 s), then reads are 300 ms again', async () => {
    const locker = new pg.Client({ connectionString: scratch.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE signal_hourly IN ACCESS EXCLUSIVE MODE');
      const ingest = ingestSignals(database.db, [
        { ...fixtureItems()[0]!, source_url: 'https://wire.example.com/late-write' },
      ]);
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // over three read timeouts
      await locker.query('ROLLBACK');
      expect((await ingest).accepted).toBe(1);
    } finally {
      await locker.end();
    }
    const [setting] = await queryRows<{ statement_timeout: string }>(
      database.db,
      sql`SHOW statement_timeout`,
    );
    expect(setting!.statement_timeout).toBe('300ms');
  });
});

describe('statement timeout on PGlite', () => {
  it('is set after open', { timeout: 120_000 }, async () => {
    const database = await testPglite({ statementTimeoutMs: 1234 });
    try {
      const [row] = await queryRows<{ statement_timeout: string }>(database.db, sql`SHOW statement_timeout`);
      expect(row!.statement_timeout).toBe('1234ms');
    } finally {
      await database.close();
    }
  });
});

describe('statement timeout configuration and classification', () => {
  it('reads DB_STATEMENT_TIMEOUT_MS (default 5,000; 0 disables) and refuses nonsense', () => {
    expect(loadConfig({}).DB_STATEMENT_TIMEOUT_MS).toBe(5_000);
    expect(loadConfig({ DB_STATEMENT_TIMEOUT_MS: '0' }).DB_STATEMENT_TIMEOUT_MS).toBe(0);
    expect(loadConfig({ DB_STATEMENT_TIMEOUT_MS: '250' }).DB_STATEMENT_TIMEOUT_MS).toBe(250);
    for (const bad of ['-1', 'soon', '1.5']) {
      expect(() => loadConfig({ DB_STATEMENT_TIMEOUT_MS: bad })).toThrow(ConfigError);
    }
  });

  it('knows 57014 however deep the driver wrapped it, and nothing else', () => {
    const cancelled = Object.assign(new Error('canceling statement due to statement timeout'), {
      code: '57014',
    });
    expect(isStatementTimeout(cancelled)).toBe(true);
    expect(isStatementTimeout(new Error('Failed query', { cause: cancelled }))).toBe(true);
    expect(isStatementTimeout(Object.assign(new Error('unique violation'), { code: '23505' }))).toBe(false);
    expect(isUnavailable(cancelled)).toBe(false);
  });
});
