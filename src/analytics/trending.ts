import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client';
import { regionOf } from '../vocab';
import { rankTrending, TRENDING } from './formulas';
import { DAY_MS, HOUR_MS, windowOf } from './sql';

interface CountRow {
  kind: 'layer' | 'country';
  key: string;
  recent: number;
  baseline: number;
}

/**
 * Top layers and countries (a signal's primary country, as in the anomaly rule) by spike ratio
 * of (now − 6 h, now] against the 7 days before it. One query over the publication-time index.
 */
export async function trending(db: Database, now: Date) {
  const recentStart = new Date(now.getTime() - TRENDING.windowHours * HOUR_MS);
  const baselineStart = new Date(recentStart.getTime() - TRENDING.baselineDays * DAY_MS);
  const [n, r, b] = [now.toISOString(), recentStart.toISOString(), baselineStart.toISOString()];
  const rows = await queryRows<CountRow>(
    db,
    sql`WITH w AS (
          SELECT threat_layer, country_codes[1] AS country, published_at > ${r}::timestamptz AS recent
          FROM signals WHERE published_at > ${b}::timestamptz AND published_at <= ${n}::timestamptz)
        SELECT 'layer' AS kind, threat_layer AS key, (count(*) FILTER (WHERE recent))::int AS recent,
               (count(*) FILTER (WHERE NOT recent))::int AS baseline FROM w GROUP BY threat_layer
        UNION ALL
        SELECT 'country', country, (count(*) FILTER (WHERE recent))::int,
               (count(*) FILTER (WHERE NOT recent))::int FROM w WHERE country IS NOT NULL GROUP BY country`,
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
