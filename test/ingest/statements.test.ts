/**
 * What one ingest batch sends: every fact of a new signal (source, anomaly, event, lead,
 * corroboration, score, upstream identity, classification) is settled before ONE INSERT writes
 * its row, and no statement of the batch updates a row the batch wrote. Statements are counted
 * through drizzle's logger (what the driver is sent); rows through triggers (what Postgres did),
 * on PGlite and on the CI Postgres.
 */
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, schema, type Database, type DatabaseHandle } from '../../src/db/client';
import { postgresDatabase } from '../../src/db/node';
import { ingestSignals } from '../../src/ingest/pipeline';
import { ingestSourceItems } from '../../src/ingest/upstream';
import type { SourceItem } from '../../src/sources/types';
import { testPglite } from '../support/harness';
import { createScratchDatabase, testDatabaseUrl } from '../support/services';

const HOUR = 3_600_000;
const NOW = new Date('2026-11-20T12:00:00Z');

const story = (s: number) =>
  [
    'Artillery strikes hit the Kharkiv power station overnight, officials say',
    'Floods force thousands from their homes along the Danube in Novi Sad',
    'Wildfire near Patras spreads toward villages as winds pick up',
    'Cyber attack disrupts payments at Lisbon port operator',
  ][s]!;

/** One report of story `s` by outlet `o`. */
const report = (s: number, o: number, extra: Record<string, unknown> = {}) => ({
  threat_layer: 'military',
  significance_score: 4 + o,
  signal_valence: 'crisis',
  title: `${story(s)}${o === 0 ? '' : ` (${['update', 'report', 'live', 'more'][o % 4]})`}`,
  content_display: `${story(s)}. Officials gave no figure for the damage.`,
  country_codes: [['UA', 'RS', 'GR', 'PT'][s]!],
  published_at: new Date(NOW.getTime() - 2 * HOUR + s * 60_000 + o * 1000).toISOString(),
  source_url: `https://outlet${o}.example.com/story/${s}/${o}`,
  source: { name: `Statement Outlet ${o}` },
  ...extra,
});

interface Backend {
  name: string;
  open(): Promise<{ handle: DatabaseHandle; counting(log: string[]): Database; close(): Promise<void> }>;
}

const logger = (log: string[]) => ({ logQuery: (query: string) => void log.push(query) });

const backends: Backend[] = [
  {
    name: 'pglite',
    async open() {
      const handle = await testPglite();
      const client = (handle.db as unknown as { $client: PGlite }).$client;
      return {
        handle,
        counting: (log) => drizzlePglite({ client, schema, logger: logger(log) }),
        close: () => handle.close(),
      };
    },
  },
  ...(testDatabaseUrl()
    ? [
        {
          name: 'postgres',
          async open() {
            const scratch = await createScratchDatabase(testDatabaseUrl()!);
            const handle = await postgresDatabase(scratch.url, { migrate: true });
            const pool = (handle.db as unknown as { $client: pg.Pool }).$client;
            return {
              handle,
              counting: (log: string[]) =>
                drizzlePg({ client: pool, schema, logger: logger(log) }) as unknown as Database,
              close: async () => {
                await handle.close();
                await scratch.drop();
              },
            };
          },
        },
      ]
    : []),
];

describe.each(backends)('the statements of one ingest batch on $name', (backend) => {
  let opened: Awaited<ReturnType<Backend['open']>>;
  let db: Database;

  beforeAll(async () => {
    opened = await backend.open();
    db = opened.handle.db;
    // Row-level truth: every row an INSERT wrote and every row an UPDATE touched, as Postgres saw them.
    await db.execute(sql`CREATE TABLE row_writes (op text NOT NULL, id uuid NOT NULL)`);
    await db.execute(sql`
      CREATE FUNCTION log_row_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO row_writes VALUES (lower(TG_OP), NEW.id); RETURN NEW; END $$`);
    await db.execute(sql`
      CREATE TRIGGER signals_row_writes AFTER INSERT OR UPDATE ON signals
      FOR EACH ROW EXECUTE FUNCTION log_row_write()`);
    // Stored before the batch: the first report of stories 0 and 1, which the batch retells.
    expect(await ingestSignals(db, [report(0, 0), report(1, 0)], { now: NOW })).toMatchObject({
      accepted: 2,
    });
  }, 120_000);
  afterAll(async () => {
    await opened?.close();
  });

  /** Runs one batch through a logging handle: its statements, and the rows written and updated. */
  async function watch(work: (counting: Database) => Promise<unknown>) {
    await db.execute(sql`TRUNCATE row_writes`);
    const log: string[] = [];
    await work(opened.counting(log));
    const writes = await queryRows<{ op: string; id: string }>(db, sql`SELECT op, id::text FROM row_writes`);
    const inserted = writes.filter((w) => w.op === 'insert').map((w) => w.id);
    return {
      log,
      signalInserts: log.filter((q) => /^\s*insert into "?signals"?\s/i.test(q)).length,
      signalUpdates: log.filter((q) => /^\s*(with [\s\S]*)?update "?signals"?\s/i.test(q)).length,
      inserted,
      updated: writes.filter((w) => w.op === 'update').map((w) => w.id),
    };
  }

  it('writes each new signal once, settled: one INSERT, no UPDATE of a row of the batch', async () => {
    // Retellings of both stored stories (they change the stored leads and corroboration), a new
    // story told by four outlets (a spike of its pair: anomalous), a duplicate and a bad item.
    const batch = [
      report(0, 1),
      report(0, 2),
      report(1, 3),
      ...[0, 1, 2, 3].map((o) => report(2, o)),
      report(3, 0, { is_anomaly: true }),
      report(1, 0), // stored already
      { ...report(3, 1), significance_score: 11 }, // invalid
    ];
    const seen = await watch((counting) =>
      ingestSignals(counting, batch, { now: NOW }).then((result) =>
        expect(result).toMatchObject({ accepted: 8, duplicates: 1, rejected: 1 }),
      ),
    );
    expect(seen.signalInserts).toBe(1);
    expect(seen.inserted).toHaveLength(8);
    expect(new Set(seen.inserted).size).toBe(8);
    const fresh = new Set(seen.inserted);
    expect(seen.updated.filter((id) => fresh.has(id))).toEqual([]);
    // The test can see updates: the stored reports lost their lead or gained corroboration.
    expect(seen.updated.length).toBeGreaterThan(0);

    // ...and the one INSERT carried every settled fact.
    const rows = await queryRows<{
      url: string;
      event_id: string;
      event_lead: boolean;
      corroboration: number;
      score: number;
      base: number;
      anomaly: boolean;
    }>(
      db,
      sql`SELECT source_url AS url, event_id::text, event_lead, corroboration, significance_score AS score,
            base_score AS base, is_anomaly AS anomaly FROM signals ORDER BY source_url`,
    );
    const of = (s: number, o: number) => rows.find((r) => r.url === report(s, o).source_url)!;
    expect(of(0, 1).event_id).toBe(of(0, 0).event_id);
    expect(of(0, 1).corroboration).toBe(3);
    expect([of(0, 0), of(0, 1), of(0, 2)].filter((r) => r.event_lead)).toHaveLength(1);
    expect(of(0, 2).event_lead).toBe(true); // the strongest report leads
    expect(of(2, 3).score).toBeGreaterThan(of(2, 3).base); // corroborated by four outlets
    expect([0, 1, 2, 3].map((o) => of(2, o).anomaly)).toEqual([false, false, false, true]);
    expect(of(3, 0).anomaly).toBe(true);
  });

  it('writes a connector item with its external ids and classification in the same INSERT', async () => {
    const source = (
      await queryRows<{ id: string }>(
        db,
        sql`INSERT INTO sources (name, tier) VALUES ('Statement Feed', 'core') RETURNING id::text`,
      )
    )[0]!;
    const { source: _named, ...fields } = report(3, 2);
    const item: SourceItem = {
      ...(fields as Omit<SourceItem, 'external_ids'>),
      external_ids: ['statement:3-2'],
      upstream_updated_at: NOW.toISOString(),
      // A reading's facts as the news connectors store them (kind and casualties feed linking).
      classification: {
        rules: ['statement'],
        kind: null,
        casualties: { dead: null, hurt: null, missing: null, evidence: [] },
      } as unknown as SourceItem['classification'],
    };
    const upstream = { id: source.id, name: 'Statement Feed', tier: 'core' as const, url: null };
    const seen = await watch((counting) =>
      ingestSourceItems(counting, upstream, [item], { now: NOW }).then((result) =>
        expect(result).toMatchObject({ accepted: 1 }),
      ),
    );
    expect(seen.signalInserts).toBe(1);
    expect(seen.inserted).toHaveLength(1);
    expect(seen.updated).not.toContain(seen.inserted[0]);
    const [row] = await queryRows<{ external_ids: string[]; classification: unknown; upstream: string }>(
      db,
      sql`SELECT external_ids, classification, upstream_updated_at::text AS upstream FROM signals
          WHERE id = ${seen.inserted[0]}`,
    );
    expect(row).toMatchObject({ external_ids: ['statement:3-2'], classification: { rules: ['statement'] } });
    expect(Date.parse(row!.upstream)).toBe(NOW.getTime());

    // The same item again: judged `same`, nothing written.
    const again = await watch((counting) => ingestSourceItems(counting, upstream, [item], { now: NOW }));
    expect(again.signalInserts + again.signalUpdates).toBe(0);
    expect(again.inserted).toEqual([]);
  });
});
