/**
 * Loads the benchmark data set: 1,000,000 signals in a real Postgres.
 *
 * 20,000 realistic demo signals go through the real ingest pipeline (entities, anomalies,
 * aggregates); the rest are copies made inside Postgres with `INSERT … SELECT generate_series`,
 * each shifted in time, score and place so the indexes see a realistic spread. The aggregates
 * the pipeline maintains (hourly buckets, totals, source coverage and counters) are then rebuilt
 * from the whole table so they stay consistent (`rebuildAggregates`). Skipped on purpose: entity links of the copies
 * (only the 20,000 originals carry entities) and anomaly re-flagging of the copies.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import type { Database } from '../src/db/client';
import { queryRows } from '../src/db/client';
import { MIGRATIONS_FOLDER } from '../src/db/node';
import { generateDemoSignals } from '../src/ingest/demo';
import { rebuildAggregates } from '../src/ingest/aggregates';
import { ingestSignals } from '../src/ingest/pipeline';

export const TARGET = 1_000_000;
const ORIGINALS = 20_000;

/** Creates the database of `url` when it does not exist yet (connecting to `postgres`). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const server = new URL(url);
  server.pathname = '/postgres';
  const client = new pg.Client({ connectionString: server.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

/**
 * The secondary indexes of `signals` as the migrations define them (the last definition of a
 * name wins; the primary key and the source_url key stay in place during the load).
 */
export function signalIndexes(): { name: string; create: string }[] {
  const found = new Map<string, string>();
  const files = readdirSync(MIGRATIONS_FOLDER)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  for (const file of files) {
    for (const statement of readFileSync(join(MIGRATIONS_FOLDER, file), 'utf8').split(
      '--> statement-breakpoint',
    )) {
      const text = statement.trim();
      const created = /^CREATE INDEX "([^"]+)" ON "signals"/.exec(text);
      if (created)
        found.set(created[1]!, text.replace(/^CREATE INDEX/, 'CREATE INDEX IF NOT EXISTS').replace(/;$/, ''));
      const dropped = /^DROP INDEX (?:IF EXISTS )?"([^"]+)"/.exec(text);
      if (dropped) found.delete(dropped[1]!);
    }
  }
  return [...found].map(([name, create]) => ({ name, create }));
}

/** Creates any missing secondary index of `signals` (idempotent; also heals an interrupted load). */
export async function ensureIndexes(db: Database, log: (line: string) => void): Promise<void> {
  const have = new Set(
    (
      await queryRows<{ indexname: string }>(
        db,
        sql`SELECT indexname FROM pg_indexes WHERE tablename = 'signals'`,
      )
    ).map((r) => r.indexname),
  );
  const missing = signalIndexes().filter((index) => !have.has(index.name));
  for (const index of missing) {
    log(`  building index ${index.name} …`);
    await db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL maintenance_work_mem = '512MB'`);
      await tx.execute(sql.raw(index.create));
    });
  }
  // An expression index (first country) gets its statistics only from an ANALYZE.
  if (missing.length) await db.execute(sql`ANALYZE signals`);
}

/** Share of originals (in tenths) whose copies are told as multi-signal events, and how many per event. */
const EVENT_TENTHS = 3;
const PER_EVENT = 4;

/**
 * Groups the signals into events as a linker would leave them: for 3 in 10 originals (by a
 * hash of the original's URL), their copies in consecutive rounds of 4 (published 13 minutes
 * plus up to 10 hours apart, scores within a point) are one event; every other signal is an
 * event of its own. So about 30% of signals are echoes or leads of 4-signal events and the
 * rest stand alone. Then the events' rows, leads and corroboration are built from the members,
 * exactly as ingest keeps them.
 */
async function groupEvents(db: Database, log: (line: string) => void): Promise<void> {
  log('  grouping signals into events …');
  const original = sql.raw(`split_part(source_url, '#r', 1)`);
  const round = sql.raw(`coalesce(nullif(split_part(source_url, '#r', 2), ''), '0')::int`);
  await db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL work_mem = '256MB'`);
    await tx.execute(sql`TRUNCATE events`);
    await tx.execute(sql`
      UPDATE signals s SET event_id = g.event_id, base_score = s.significance_score
      FROM (SELECT id, CASE WHEN abs(hashtext(${original})) % 10 < ${EVENT_TENTHS}
                            THEN first_value(id) OVER (PARTITION BY ${original}, ${round} / ${PER_EVENT} ORDER BY ${round}, id)
                            ELSE id END AS event_id
            FROM signals) g
      WHERE g.id = s.id`);
    await tx.execute(sql`
      INSERT INTO events (id, threat_layer, country_codes, first_seen_at, last_seen_at, lead_signal_id, max_score,
                          signal_count, publisher_count, publisher_families)
      SELECT o.event_id, (array_agg(threat_layer ORDER BY published_at, id))[1],
             (SELECT f.country_codes FROM signals f WHERE f.id = o.event_id), min(published_at), max(published_at),
             (array_agg(id ORDER BY base_score DESC, published_at, id))[1], max(base_score),
             count(*), count(DISTINCT source_id), array_agg(DISTINCT source_id::text)
      FROM signals o WHERE retracted_at IS NULL GROUP BY o.event_id`);
    await tx.execute(sql`
      UPDATE signals s SET event_lead = (s.id = e.lead_signal_id), corroboration = e.publisher_count
      FROM events e WHERE e.id = s.event_id`);
  });
  const [stats] = await queryRows<{ events: string; multi: string }>(
    db,
    sql`SELECT count(*) AS events, count(*) FILTER (WHERE signal_count > 1) AS multi FROM events`,
  );
  log(`  ${stats!.events} events, ${stats!.multi} of them told by several signals`);
}

const count = async (db: Database) =>
  Number((await queryRows<{ n: string }>(db, sql`SELECT count(*) AS n FROM signals`))[0]!.n);

/** Brings the signals table to TARGET rows; does nothing when they are already there. */
export async function loadSignals(db: Database, log: (line: string) => void): Promise<number> {
  let have = await count(db);
  if (have >= TARGET) {
    const [events] = await queryRows<{ n: string }>(db, sql`SELECT count(*) AS n FROM events`);
    if (Number(events!.n) === 0) {
      // Loaded before events existed: group it now, with the indexes out of the way.
      for (const index of signalIndexes()) await db.execute(sql.raw(`DROP INDEX IF EXISTS "${index.name}"`));
      await groupEvents(db, log);
      await db.execute(sql`VACUUM ANALYZE signals`);
    }
    await ensureIndexes(db, log);
    return have;
  }
  if (have < ORIGINALS) {
    const items = generateDemoSignals({ count: ORIGINALS, now: new Date(), seed: 7 });
    for (let i = 0; i < items.length; i += 2_000) {
      await ingestSignals(db, items.slice(i, i + 2_000));
      log(`  ingested ${Math.min(i + 2_000, items.length)} / ${ORIGINALS} originals`);
    }
    have = await count(db);
  }
  // Building the secondary indexes once at the end is far faster than maintaining them per row.
  for (const index of signalIndexes()) await db.execute(sql.raw(`DROP INDEX IF EXISTS "${index.name}"`));
  // Copy round r of the originals until the target is reached; each round is one statement.
  const originals = sql`SELECT * FROM signals WHERE source_url NOT LIKE '%#r%'`;
  // Rounds continue from an interrupted load: copy r of an original has source_url `…#r<r>`.
  for (let round = Math.floor(have / ORIGINALS); have < TARGET; round++) {
    const take = Math.min(ORIGINALS, TARGET - have);
    await db.execute(sql`
      INSERT INTO signals (threat_layer, significance_score, signal_valence, title, content_display,
        country_codes, region, city, lat, lng, language, source_id, source_url,
        published_at, collected_at, is_anomaly)
      SELECT threat_layer,
        least(10, greatest(0, round((significance_score + random() - 0.5)::numeric, 1)))::float8,
        signal_valence, title, content_display, country_codes, region, city,
        CASE WHEN lat IS NULL THEN NULL ELSE least(90, greatest(-90, lat + random() - 0.5)) END,
        CASE WHEN lng IS NULL THEN NULL ELSE least(180, greatest(-180, lng + random() - 0.5)) END,
        language, source_id, source_url || '#r' || ${round},
        published_at - make_interval(mins => ${round} * 13 + floor(random() * 600)::int),
        collected_at - make_interval(mins => ${round} * 13),
        is_anomaly
      FROM (${originals} ORDER BY id LIMIT ${take}) o
      ON CONFLICT (source_url) DO NOTHING`);
    const before = have;
    have = await count(db);
    if (have === before) throw new Error(`copy round ${round} added nothing`);
    log(`  copy round ${round}: ${have} signals`);
  }
  await groupEvents(db, log);
  await ensureIndexes(db, log);
  log('  rebuilding aggregates …');
  await rebuildAggregates(db);
  await db.execute(sql`VACUUM ANALYZE signals`);
  return have;
}
