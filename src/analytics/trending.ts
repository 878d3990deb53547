import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client';
import { regionOf } from '../vocab';
import { rankTrending, TRENDING } from './formulas';
import { anyOf, atEdges, DAY_MS, HOUR_MS, inBuckets, spanOf, windowOf } from './sql';

interface CountRow {
  kind: 'layer' | 'country';
  key: string;
  recent: number;
  baseline: number;
}

/**
 * Top layers and countries (a signal's primary country, as in the anomaly rule) by spike ratio
 * of (now − 6 h, now] against the 7 days before it. One query over the hourly aggregates
 * (`signal_hourly` by layer, `signal_country_hourly.primary_count` by country) plus the
 * partial hours at the windows' ends from the signals table.
 */
export async function trending(db: Database, now: Date) {
  const recentStart = new Date(now.getTime() - TRENDING.windowHours * HOUR_MS);
  const baselineStart = new Date(recentStart.getTime() - TRENDING.baselineDays * DAY_MS);
  const recent = spanOf(recentStart, now);
  const base = spanOf(baselineStart, recentStart);
  const counts = (key: SQL, n: SQL, table: SQL, where: SQL, rawKey: SQL, rawWhere: SQL) => sql`
    SELECT key, sum(recent)::int AS recent, sum(baseline)::int AS baseline FROM (
      SELECT ${key} AS key, CASE WHEN ${inBuckets(recent)} THEN ${n} ELSE 0 END AS recent,
             CASE WHEN ${inBuckets(base)} THEN ${n} ELSE 0 END AS baseline
      FROM ${table} WHERE ${anyOf([inBuckets(recent), inBuckets(base)])} AND ${where}
      UNION ALL
      SELECT ${rawKey}, (${atEdges(recent)})::int, (${atEdges(base)})::int
      FROM signals WHERE ${anyOf([atEdges(recent), atEdges(base)])} AND retracted_at IS NULL AND ${rawWhere}
    ) w GROUP BY key`;
  const rows = await queryRows<CountRow>(
    db,
    sql`SELECT 'layer' AS kind, * FROM (${counts(sql`threat_layer`, sql`signal_count`, sql`signal_hourly`, sql`true`, sql`threat_layer`, sql`true`)}) l
        UNION ALL
        SELECT 'country', * FROM (${counts(sql`country`, sql`primary_count`, sql`signal_country_hourly`, sql`primary_count > 0`, sql`country_codes[1]`, sql`cardinality(country_codes) > 0`)}) c`,
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
