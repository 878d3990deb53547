import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client';
import type { signals } from '../db/schema';

/**
 * The analytics aggregates (drizzle/0006): `signal_country_hourly` and its daily sums
 * `signal_country_daily` (compound crises, trending by country) and `signal_totals` (stats), beside
 * `signal_hourly`, source coverage and counters and the ingest clock. Ingest counts new signals in
 * (`countNewSignals`); a revision or a retraction moves one signal's contribution
 * (`moveSignalContribution`). Retracted signals count nowhere. Beside each signal count, the
 * `event_*` columns (drizzle/0015) count founders only (`id = event_id`), so trending and
 * crises count events, not echoes; a founder whose event is merged away stops counting there.
 */

/** `(…)` of the given ids, sent as one jsonb parameter (not one parameter per id). */
const idSet = (ids: readonly string[]): SQL =>
  sql`(SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid)`;

/**
 * What the counters take of a new signal: the facts its INSERT wrote, so they are counted from
 * the batch in memory instead of read back (the batch's rows, once per counted table).
 */
export type CountedSignal = Pick<
  typeof signals.$inferInsert,
  | 'id'
  | 'eventId'
  | 'publishedAt'
  | 'region'
  | 'threatLayer'
  | 'countryCodes'
  | 'signalValence'
  | 'isAnomaly'
  | 'baseScore'
  | 'language'
  | 'sourceId'
>;

/**
 * Counts newly written signals everywhere ingest keeps counts: the hourly buckets
 * (`signal_hourly`, `signal_country_hourly` and its days `signal_country_daily`), `signal_totals`,
 * source coverage and the sources' counters, and the ingest clock (`ingest_minutes`, what
 * /freshness reads). Each new signal counts (`n` = 1) and founds an event or not (`e` = 1 when
 * `id = event_id`); each founder in `unfounded` (its event was merged away by this batch, so it is
 * an echo now) only stops counting as an event (`n` = 0, `e` = −1). One statement, the batch's
 * facts as one parameter. Called last in the ingest transaction, after the batch's sources are
 * locked (`settleSources`): these rows are shared by every ingest, so their locks are held only
 * for the commit. Each table's rows are written in key order (and the tables in the statement's
 * one order), so concurrent ingests never deadlock on them.
 */
export async function countNewSignals(
  db: Database,
  written: readonly CountedSignal[],
  unfounded: readonly string[],
): Promise<void> {
  if (written.length === 0) return;
  const batch = JSON.stringify(
    written.map((s) => ({
      published_at: s.publishedAt,
      region: s.region ?? null,
      threat_layer: s.threatLayer,
      country_codes: s.countryCodes ?? [],
      signal_valence: s.signalValence,
      is_anomaly: s.isAnomaly ?? false,
      score: s.baseScore,
      e: s.id === s.eventId ? 1 : 0,
      language: s.language ?? null,
      source_id: s.sourceId,
    })),
  );
  const removed =
    unfounded.length === 0
      ? sql``
      : sql`UNION ALL SELECT published_at, region, threat_layer, country_codes, signal_valence, is_anomaly,
             coalesce(base_score, significance_score), -1, language, source_id, 0 FROM signals
           WHERE id IN ${idSet(unfounded)} AND retracted_at IS NULL`;
  // The country tables, hour and day: the same fold into two bucket sizes.
  const country = (table: SQL, unit: SQL) => sql`
      INSERT INTO ${table} AS h
        (bucket, country, threat_layer, signal_count, primary_count, score_sum, score_max, crisis_count,
         event_count, primary_event_count, event_crisis_count, event_score_sum)
      SELECT date_trunc(${unit}, s.published_at), c.code, s.threat_layer, sum(s.n), coalesce(sum(s.n) FILTER (WHERE c.ord = 1), 0),
             sum(s.n * s.score), coalesce(max(s.score) FILTER (WHERE s.n = 1), 0),
             coalesce(sum(s.n) FILTER (WHERE s.signal_valence = 'crisis'), 0),
             sum(s.e), coalesce(sum(s.e) FILTER (WHERE c.ord = 1), 0),
             coalesce(sum(s.e) FILTER (WHERE s.signal_valence = 'crisis'), 0), sum(s.e * s.score)
      FROM folded s, unnest(s.country_codes) WITH ORDINALITY AS c(code, ord)
      GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT (bucket, country, threat_layer) DO UPDATE SET
        signal_count = h.signal_count + excluded.signal_count,
        primary_count = h.primary_count + excluded.primary_count,
        score_sum = h.score_sum + excluded.score_sum,
        score_max = greatest(h.score_max, excluded.score_max),
        crisis_count = h.crisis_count + excluded.crisis_count,
        event_count = h.event_count + excluded.event_count,
        primary_event_count = h.primary_event_count + excluded.primary_event_count,
        event_crisis_count = h.event_crisis_count + excluded.event_crisis_count,
        event_score_sum = h.event_score_sum + excluded.event_score_sum`;
  await db.execute(sql`
    WITH folded AS MATERIALIZED (
      SELECT v.*, 1 AS n FROM jsonb_to_recordset(${batch}::jsonb) AS v(published_at timestamptz, region text,
        threat_layer text, country_codes text[], signal_valence text, is_anomaly boolean, score float8, e int,
        language text, source_id uuid)
      ${removed}),
    added AS (SELECT * FROM folded WHERE n = 1),
    hourly AS (
      INSERT INTO signal_hourly AS h (bucket, region, threat_layer, signal_count, score_sum, score_max, crisis_count, anomaly_count, event_count)
      SELECT date_trunc('hour', published_at), coalesce(region, ''), threat_layer, sum(n), sum(n * score),
             coalesce(max(score) FILTER (WHERE n = 1), 0), coalesce(sum(n) FILTER (WHERE signal_valence = 'crisis'), 0),
             coalesce(sum(n) FILTER (WHERE is_anomaly), 0), sum(e)
      FROM folded
      GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT (bucket, region, threat_layer) DO UPDATE SET
        signal_count = h.signal_count + excluded.signal_count,
        score_sum = h.score_sum + excluded.score_sum,
        score_max = greatest(h.score_max, excluded.score_max),
        crisis_count = h.crisis_count + excluded.crisis_count,
        anomaly_count = h.anomaly_count + excluded.anomaly_count,
        event_count = h.event_count + excluded.event_count),
    coverage AS (
      INSERT INTO source_coverage AS sc (source_id, region, threat_layer, signal_count, last_seen_at)
      SELECT source_id, coalesce(region, ''), threat_layer, count(*), max(published_at)
      FROM added GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT (source_id, region, threat_layer) DO UPDATE SET
        signal_count = sc.signal_count + excluded.signal_count,
        last_seen_at = greatest(sc.last_seen_at, excluded.last_seen_at)),
    -- The ingest clock: now() is the transaction's, the ingested_at of every row it wrote.
    counters AS (
      UPDATE sources SET signal_count = sources.signal_count + agg.n,
        last_seen_at = greatest(sources.last_seen_at, agg.last_seen), last_ingested_at = now()
      FROM (SELECT source_id, count(*)::int AS n, max(published_at) AS last_seen FROM added GROUP BY source_id) agg
      WHERE sources.id = agg.source_id),
    minutes AS (
      INSERT INTO ingest_minutes AS m (minute, source_id, signal_count)
      SELECT date_trunc('minute', now()), source_id, count(*) FROM added
      GROUP BY 2 ORDER BY 2
      ON CONFLICT (minute, source_id) DO UPDATE SET signal_count = m.signal_count + excluded.signal_count),
    country_hours AS (${country(sql`signal_country_hourly`, sql`'hour'`)}),
    country_days AS (${country(sql`signal_country_daily`, sql`'day'`)}),
    totals AS (
      INSERT INTO signal_totals AS t (threat_layer, language, signal_count)
      SELECT threat_layer, coalesce(language, 'und'), count(*) FROM added
      GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT (threat_layer, language) DO UPDATE SET signal_count = t.signal_count + excluded.signal_count)
    SELECT 1`);
}

/** What decides where a signal counts in the aggregates. */
export interface SignalFacts {
  publishedAt: Date;
  threatLayer: string;
  region: string | null;
  countryCodes: string[];
  language: string | null;
  sourceId: string;
}

/** The facts signal `id` counts with now, or null when it counts nowhere (unknown or retracted). */
export async function readSignalFacts(db: Database, id: string): Promise<SignalFacts | null> {
  const [row] = await queryRows<{
    published_at: Date | string;
    threat_layer: string;
    region: string | null;
    country_codes: string[];
    language: string | null;
    source_id: string;
  }>(
    db,
    sql`SELECT published_at, threat_layer, region, country_codes, language, source_id
        FROM signals WHERE id = ${id} AND retracted_at IS NULL`,
  );
  if (!row) return null;
  return {
    publishedAt: new Date(row.published_at),
    threatLayer: row.threat_layer,
    region: row.region,
    countryCodes: row.country_codes,
    language: row.language,
    sourceId: row.source_id,
  };
}

/** Founders (`id = event_id`) among the signals counted: the events, not their echoes. */
const FOUNDERS = sql`count(*) FILTER (WHERE id = event_id)`;

/** A day of a country and layer is the sum of its hours. */
const DAILY_COLUMNS = sql`bucket, country, threat_layer, signal_count, primary_count, score_sum, score_max, crisis_count,
  event_count, primary_event_count, event_crisis_count, event_score_sum`;
const DAILY_SUMS = sql`sum(signal_count), sum(primary_count), sum(score_sum), max(score_max), sum(crisis_count),
  sum(event_count), sum(primary_event_count), sum(event_crisis_count), sum(event_score_sum)`;

const hourOf = (at: Date) => new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000).toISOString();

/**
 * Moves one signal's contribution to every aggregate from `before` to `after` (null: counts
 * nowhere, e.g. `after` of a retraction or `before` of a signal that was retracted). Call it in
 * the transaction that changed the signal, after the change, with the facts read by
 * `readSignalFacts` before and after it:
 *
 *   const before = await readSignalFacts(tx, id);  // … update or retract the signal …
 *   await moveSignalContribution(tx, before, await readSignalFacts(tx, id));
 *
 * The hourly rows it touches (signal_hourly, signal_country_hourly) are recomputed from the
 * signals of their hour, so sums and maxima stay exact; the counters (signal_totals,
 * source_coverage, sources.signal_count) move by one. `last_seen_at` values are kept (a source
 * that was seen stays seen).
 */
export async function moveSignalContribution(
  db: Database,
  before: SignalFacts | null,
  after: SignalFacts | null,
): Promise<void> {
  const facts = [before, after].filter((f): f is SignalFacts => f !== null);
  const regionHours = new Map<string, { bucket: string; region: string; layer: string }>();
  const countryHours = new Map<string, { bucket: string; country: string; layer: string }>();
  for (const f of facts) {
    const bucket = hourOf(f.publishedAt);
    const region = f.region ?? '';
    regionHours.set(JSON.stringify([bucket, region, f.threatLayer]), {
      bucket,
      region,
      layer: f.threatLayer,
    });
    for (const country of f.countryCodes) {
      countryHours.set(JSON.stringify([bucket, country, f.threatLayer]), {
        bucket,
        country,
        layer: f.threatLayer,
      });
    }
  }
  const hour = (bucket: string) =>
    sql`published_at >= ${bucket}::timestamptz AND published_at < ${bucket}::timestamptz + interval '1 hour'`;
  for (const { bucket, region, layer } of regionHours.values()) {
    await db.execute(
      sql`DELETE FROM signal_hourly WHERE bucket = ${bucket}::timestamptz AND region = ${region} AND threat_layer = ${layer}`,
    );
    await db.execute(sql`
      INSERT INTO signal_hourly (bucket, region, threat_layer, signal_count, score_sum, score_max, crisis_count, anomaly_count, event_count)
      SELECT ${bucket}::timestamptz, ${region}, ${layer}, count(*), sum(coalesce(base_score, significance_score)), max(coalesce(base_score, significance_score)),
             count(*) FILTER (WHERE signal_valence = 'crisis'), count(*) FILTER (WHERE is_anomaly), ${FOUNDERS}
      FROM signals
      WHERE ${hour(bucket)} AND coalesce(region, '') = ${region} AND threat_layer = ${layer} AND retracted_at IS NULL
      HAVING count(*) > 0`);
  }
  for (const { bucket, country, layer } of countryHours.values()) {
    await db.execute(
      sql`DELETE FROM signal_country_hourly WHERE bucket = ${bucket}::timestamptz AND country = ${country} AND threat_layer = ${layer}`,
    );
    await db.execute(sql`
      INSERT INTO signal_country_hourly
        (bucket, country, threat_layer, signal_count, primary_count, score_sum, score_max, crisis_count,
         event_count, primary_event_count, event_crisis_count, event_score_sum)
      SELECT ${bucket}::timestamptz, ${country}, ${layer}, count(*), count(*) FILTER (WHERE country_codes[1] = ${country}),
             sum(coalesce(base_score, significance_score)), max(coalesce(base_score, significance_score)), count(*) FILTER (WHERE signal_valence = 'crisis'),
             ${FOUNDERS}, count(*) FILTER (WHERE id = event_id AND country_codes[1] = ${country}),
             count(*) FILTER (WHERE id = event_id AND signal_valence = 'crisis'),
             coalesce(sum(coalesce(base_score, significance_score)) FILTER (WHERE id = event_id), 0)
      FROM signals
      WHERE ${hour(bucket)} AND country_codes @> ARRAY[${country}]::text[] AND threat_layer = ${layer}
        AND retracted_at IS NULL
      HAVING count(*) > 0`);
  }
  // A day of a country and layer is the sum of its hours (just recomputed).
  const countryDays = new Map(
    [...countryHours.values()].map((k) => [JSON.stringify([k.bucket.slice(0, 10), k.country, k.layer]), k]),
  );
  for (const { bucket, country, layer } of countryDays.values()) {
    const day = `${bucket.slice(0, 10)}T00:00:00.000Z`;
    await db.execute(
      sql`DELETE FROM signal_country_daily WHERE bucket = ${day}::timestamptz AND country = ${country} AND threat_layer = ${layer}`,
    );
    await db.execute(sql`
      INSERT INTO signal_country_daily (${DAILY_COLUMNS})
      SELECT ${day}::timestamptz, ${country}, ${layer}, ${DAILY_SUMS}
      FROM signal_country_hourly
      WHERE bucket >= ${day}::timestamptz AND bucket < ${day}::timestamptz + interval '1 day'
        AND country = ${country} AND threat_layer = ${layer}
      HAVING count(*) > 0`);
  }
  const moves: [SignalFacts | null, number][] = [
    [before, -1],
    [after, 1],
  ];
  for (const [f, delta] of moves) {
    if (!f) continue;
    await db.execute(sql`
      INSERT INTO signal_totals AS t (threat_layer, language, signal_count)
      VALUES (${f.threatLayer}, ${f.language ?? 'und'}, ${delta})
      ON CONFLICT (threat_layer, language) DO UPDATE SET signal_count = t.signal_count + excluded.signal_count`);
    await db.execute(sql`
      INSERT INTO source_coverage AS sc (source_id, region, threat_layer, signal_count, last_seen_at)
      VALUES (${f.sourceId}, ${f.region ?? ''}, ${f.threatLayer}, ${delta}, ${f.publishedAt.toISOString()}::timestamptz)
      ON CONFLICT (source_id, region, threat_layer) DO UPDATE SET
        signal_count = sc.signal_count + excluded.signal_count,
        last_seen_at = greatest(sc.last_seen_at, excluded.last_seen_at)`);
    // A revision may move the publication later: the source was seen then (what /freshness reads).
    await db.execute(sql`UPDATE sources SET signal_count = signal_count + ${delta},
      last_seen_at = CASE WHEN ${delta} > 0 THEN greatest(last_seen_at, ${f.publishedAt.toISOString()}::timestamptz)
                          ELSE last_seen_at END
      WHERE id = ${f.sourceId}`);
  }
  await db.execute(sql`DELETE FROM signal_totals WHERE signal_count <= 0`);
  await db.execute(sql`DELETE FROM source_coverage WHERE signal_count <= 0`);
}

/**
 * Rebuilds every aggregate (hourly buckets, totals, source coverage and counters, the ingest
 * clock) from the signals
 * table, after a bulk load that bypassed ingest (the bench data set). Same rules as drizzle/0006.
 */
export async function rebuildAggregates(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(
      sql`TRUNCATE signal_hourly, signal_country_hourly, signal_country_daily, signal_totals, source_coverage`,
    );
    await tx.execute(sql`
      INSERT INTO signal_hourly (bucket, region, threat_layer, signal_count, score_sum, score_max, crisis_count, anomaly_count, event_count)
      SELECT date_trunc('hour', published_at), coalesce(region, ''), threat_layer, count(*), sum(coalesce(base_score, significance_score)),
             max(coalesce(base_score, significance_score)), count(*) FILTER (WHERE signal_valence = 'crisis'), count(*) FILTER (WHERE is_anomaly),
             ${FOUNDERS}
      FROM signals WHERE retracted_at IS NULL GROUP BY 1, 2, 3`);
    await tx.execute(sql`
      INSERT INTO signal_country_hourly (bucket, country, threat_layer, signal_count, primary_count, score_sum, score_max, crisis_count,
        event_count, primary_event_count, event_crisis_count, event_score_sum)
      SELECT date_trunc('hour', s.published_at), c.code, s.threat_layer, count(*), count(*) FILTER (WHERE c.ord = 1),
             sum(coalesce(s.base_score, s.significance_score)), max(coalesce(s.base_score, s.significance_score)), count(*) FILTER (WHERE s.signal_valence = 'crisis'),
             count(*) FILTER (WHERE s.id = s.event_id), count(*) FILTER (WHERE s.id = s.event_id AND c.ord = 1),
             count(*) FILTER (WHERE s.id = s.event_id AND s.signal_valence = 'crisis'),
             coalesce(sum(coalesce(s.base_score, s.significance_score)) FILTER (WHERE s.id = s.event_id), 0)
      FROM signals s, unnest(s.country_codes) WITH ORDINALITY AS c(code, ord)
      WHERE s.retracted_at IS NULL GROUP BY 1, 2, 3`);
    await tx.execute(sql`
      INSERT INTO signal_country_daily (${DAILY_COLUMNS})
      SELECT date_trunc('day', bucket), country, threat_layer, ${DAILY_SUMS}
      FROM signal_country_hourly GROUP BY 1, 2, 3`);
    await tx.execute(sql`
      INSERT INTO signal_totals (threat_layer, language, signal_count)
      SELECT threat_layer, coalesce(language, 'und'), count(*) FROM signals WHERE retracted_at IS NULL GROUP BY 1, 2`);
    await tx.execute(sql`TRUNCATE ingest_minutes`);
    await tx.execute(sql`
      INSERT INTO ingest_minutes (minute, source_id, signal_count)
      SELECT date_trunc('minute', ingested_at), source_id, count(*) FROM signals GROUP BY 1, 2`);
    await tx.execute(sql`
      INSERT INTO source_coverage (source_id, region, threat_layer, signal_count, last_seen_at)
      SELECT source_id, coalesce(region, ''), threat_layer, count(*), max(published_at)
      FROM signals WHERE retracted_at IS NULL GROUP BY 1, 2, 3`);
    await tx.execute(sql`
      UPDATE sources SET signal_count = coalesce(agg.n, 0), last_seen_at = agg.last_seen,
        last_ingested_at = agg.last_ingested
      FROM sources s LEFT JOIN (SELECT source_id, (count(*) FILTER (WHERE retracted_at IS NULL))::int AS n,
                                  max(published_at) FILTER (WHERE retracted_at IS NULL) AS last_seen,
                                  max(ingested_at) AS last_ingested
                                FROM signals GROUP BY source_id) agg ON agg.source_id = s.id
      WHERE sources.id = s.id`);
  });
}
