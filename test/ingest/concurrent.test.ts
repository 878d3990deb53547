import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type DatabaseHandle } from '../../src/db/client';
import { postgresDatabase } from '../../src/db/node';
import { ingestSignals } from '../../src/ingest/pipeline';
import { createScratchDatabase, testDatabaseUrl, type ScratchDatabase } from '../support/services';

const SOURCES = Array.from({ length: 12 }, (_, i) => `Concurrent Source ${String.fromCharCode(65 + i)}`);
const BATCHES = 48;
const PER_BATCH = 6;

// Each batch names every source, in its own order, and the same places, so concurrent ingests
// share the source rows, the entities, the counters and, through their story, the events.
const batch = (b: number) =>
  Array.from({ length: PER_BATCH }, (_, i) => ({
    threat_layer: 'military',
    significance_score: 6,
    signal_valence: 'crisis',
    title: `Artillery strikes hit Kharkiv overnight, officials in Ukraine say (${b}-${i})`,
    content_display: 'Officials in Kharkiv and Kyiv said artillery strikes hit the city overnight.',
    country_codes: ['UA'],
    published_at: new Date(Date.UTC(2026, 10, 20, 6, b, i)).toISOString(),
    source_url: `https://concurrent.example.com/${b}/${i}`,
    source: { name: SOURCES[(b * 7 + i * (b % 2 === 0 ? 5 : 7)) % SOURCES.length]! },
  }));

// On the CI Postgres only: PGlite has one connection, so its ingests never overlap.
describe.skipIf(!testDatabaseUrl())('concurrent ingests on Postgres', () => {
  let scratch: ScratchDatabase;
  let database: DatabaseHandle;

  beforeAll(async () => {
    scratch = await createScratchDatabase(testDatabaseUrl()!);
    database = await postgresDatabase(scratch.url, { migrate: true });
  }, 60_000);
  afterAll(async () => {
    await database?.close();
    await scratch?.drop();
  });

  it('all commit (no deadlock on shared sources, entities, events or counters) and count exactly', async () => {
    const results = await Promise.all(
      Array.from({ length: BATCHES }, (_, b) => ingestSignals(database.db, batch(b))),
    );
    expect(results.map((r) => r.accepted)).toEqual(Array(BATCHES).fill(PER_BATCH));

    const total = BATCHES * PER_BATCH;
    const [counts] = await queryRows<{ sources: number; totals: number; hourly: number; unlinked: number }>(
      database.db,
      sql`SELECT (SELECT sum(signal_count)::int FROM sources) AS sources,
            (SELECT sum(signal_count)::int FROM signal_totals) AS totals,
            (SELECT sum(signal_count)::int FROM signal_hourly) AS hourly,
            (SELECT count(*)::int FROM signals s WHERE NOT EXISTS
              (SELECT 1 FROM events e WHERE e.id = s.event_id)) AS unlinked`,
    );
    expect(counts).toEqual({ sources: total, totals: total, hourly: total, unlinked: 0 });
    const perSource = await queryRows<{ name: string; signal_count: number; actual: number }>(
      database.db,
      sql`SELECT src.name, src.signal_count, (SELECT count(*)::int FROM signals s WHERE s.source_id = src.id) AS actual
          FROM sources src ORDER BY src.name`,
    );
    expect(perSource.map((s) => s.name)).toEqual([...SOURCES].sort());
    for (const s of perSource) expect(s.signal_count, s.name).toBe(s.actual);
  }, 60_000);
});
