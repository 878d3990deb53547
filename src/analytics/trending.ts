import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client';
import { regionOf } from '../vocab';
import { rankTrending, TRENDING } from './formulas';
import {
  anyOf,
  atEdges,
  DAY_MS,
  HOUR_MS,
  inBuckets,
  inDays,
  inHoursBesideDays,
  spanOf,
  windowOf,
  type Span,
} from './sql';

interface CountRow {
  kind: 'layer' | 'country';
  key: string;
  recent: number;
  baseline: number;
}

/**
 * Top layers and countries (a signal's primary country, as in the anomaly rule) by spike ratio
 * of (now − 6 h, now] against the 7 days before it, counting events, not echoes: an event counts
 * once, at its founder's publication (`id = event_id`), however many outlets repeat it. One
 * query over the hourly aggregates (`signal_hourly.event_count` by layer,
 * `signal_country_hourly.primary_event_count` by country) plus the partial hours at the
 * windows' ends from the signals table.
 */
export async function trending(db: Database, now: Date) {
  const recentStart = new Date(now.getTime() - TRENDING.windowHours * HOUR_MS);
  const baselineStart = new Date(recentStart.getTime() - TRENDING.baselineDays * DAY_MS);
  const recent = spanOf(recentStart, now);
  const base = spanOf(baselineStart, recentStart);
  /** Per key, recent and baseline counts from aggregate rows (`parts`) and the raw partial hours. */
  const counts = (
    parts: { table: SQL; n: SQL; where: SQL; of: (s: Span) => SQL }[],
    key: SQL,
    rawKey: SQL,
    rawWhere: SQL,
  ) => sql`
    SELECT key, sum(recent)::int AS recent, sum(baseline)::int AS baseline FROM (
      ${sql.join(
        parts.map(
          (p) => sql`SELECT ${key} AS key, CASE WHEN ${p.of(recent)} THEN ${p.n} ELSE 0 END AS recent,
                       CASE WHEN ${p.of(base)} THEN ${p.n} ELSE 0 END AS baseline
                     FROM ${p.table} WHERE ${anyOf([p.of(recent), p.of(base)])} AND ${p.where}`,
        ),
        sql` UNION ALL `,
      )}
      UNION ALL
      SELECT ${rawKey}, (${atEdges(recent)})::int, (${atEdges(base)})::int
      FROM signals WHERE ${anyOf([atEdges(recent), atEdges(base)])} AND retracted_at IS NULL AND id = event_id
        AND ${rawWhere}
    ) w GROUP BY key`;
  const layers = counts(
    [{ table: sql`signal_hourly`, n: sql`event_count`, where: sql`event_count > 0`, of: inBuckets }],
    sql`threat_layer`,
    sql`threat_layer`,
    sql`true`,
  );
  const countries = counts(
    [
      {
        table: sql`signal_country_daily`,
        n: sql`primary_event_count`,
        where: sql`primary_event_count > 0`,
        of: inDays,
      },
      {
        table: sql`signal_country_hourly`,
        n: sql`primary_event_count`,
        where: sql`primary_event_count > 0`,
        of: inHoursBesideDays,
      },
    ],
    sql`country`,
    sql`country_codes[1]`,
    sql`cardinality(country_codes) > 0`,
  );
  const rows = await queryRows<CountRow>(
    db,
    sql`SELECT 'layer' AS kind, * FROM (${layers}) l UNION ALL SELECT 'country', * FROM (${countries}) c`,
  );
  const entry = (e: ReturnType<typeof rankTrending>[number]) => ({
    spike_ratio: e.spikeRatio,
    recent_count: e.recent,
    baseline_count: e.baseline,
    expected_count: e.expected,
  });
  return {
    window: windowOf(recentStart, now),
    baseline_window: windowOf(baselineStart, recentStart),
    layers: rankTrending(rows.filter((x) => x.kind === 'layer')).map((e) => ({
      threat_layer: e.key,
      ...entry(e),
    })),
    countries: rankTrending(rows.filter((x) => x.kind === 'country')).map((e) => ({
      country_code: e.key,
      region: regionOf(e.key),
      ...entry(e),
    })),
  };
}
