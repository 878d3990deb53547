import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client';
import { LAYERS, SOURCE_TIERS } from '../vocab';
import { atEdges, DAY_MS, inBuckets, spanOf } from './sql';

interface StatsRow {
  total: number;
  last_7d: number;
  layers: { name: string; total: number }[] | null;
  day_layers: { name: string; n: number }[] | null;
  languages: { name: string; signal_count: number }[] | null;
  tiers: { name: string; total: number; active: number }[] | null;
}

/**
 * Platform statistics in one round trip, never scanning signals: all-time counts from
 * `signal_totals`, the 24-hour and 7-day volumes (signals published in the window) from the hourly
 * buckets plus the partial hours at the window's ends (see `spanOf`). Retracted signals do not count.
 */
export async function platformStats(db: Database, now: Date) {
  const day = spanOf(new Date(now.getTime() - DAY_MS), now);
  const week = spanOf(new Date(now.getTime() - 7 * DAY_MS), now);
  const [row] = await queryRows<StatsRow>(
    db,
    sql`SELECT
          (SELECT coalesce(sum(signal_count), 0)::int FROM signal_totals) AS total,
          (SELECT json_agg(json_build_object('name', threat_layer, 'total', n))
             FROM (SELECT threat_layer, sum(signal_count)::int AS n FROM signal_totals GROUP BY 1) l) AS layers,
          (SELECT json_agg(json_build_object('name', language, 'signal_count', n) ORDER BY n DESC, language)
             FROM (SELECT language, sum(signal_count)::int AS n FROM signal_totals GROUP BY 1
                   HAVING sum(signal_count) > 0) g) AS languages,
          (SELECT json_agg(json_build_object('name', threat_layer, 'n', n))
             FROM (SELECT threat_layer, sum(n)::int AS n FROM (
                     SELECT threat_layer, signal_count AS n FROM signal_hourly WHERE ${inBuckets(day)}
                     UNION ALL
                     SELECT threat_layer, 1 FROM signals WHERE ${atEdges(day)} AND retracted_at IS NULL) d
                   GROUP BY 1) d) AS day_layers,
          ((SELECT coalesce(sum(signal_count), 0) FROM signal_hourly WHERE ${inBuckets(week)})
            + (SELECT count(*) FROM signals WHERE ${atEdges(week)} AND retracted_at IS NULL))::int AS last_7d,
          (SELECT json_agg(json_build_object('name', tier, 'total', n, 'active', a))
             FROM (SELECT tier, count(*)::int AS n, (count(*) FILTER (WHERE signal_count > 0))::int AS a
                   FROM sources GROUP BY tier) t) AS tiers`,
  );
  const dayOf = new Map((row?.day_layers ?? []).map((l) => [l.name, l.n]));
  const layerOf = new Map((row?.layers ?? []).map((l) => [l.name, l]));
  const tierOf = new Map((row?.tiers ?? []).map((t) => [t.name, t]));
  const languages = row?.languages ?? [];
  return {
    signals: {
      total: row?.total ?? 0,
      last_24h: [...dayOf.values()].reduce((sum, n) => sum + n, 0),
      last_7d: row?.last_7d ?? 0,
    },
    sources: {
      total: [...tierOf.values()].reduce((s, t) => s + t.total, 0),
      by_tier: SOURCE_TIERS.map((tier) => ({
        tier,
        total: tierOf.get(tier)?.total ?? 0,
        active: tierOf.get(tier)?.active ?? 0,
      })),
    },
    languages: { count: languages.length, by_language: languages },
    layers: LAYERS.map((layer) => ({
      threat_layer: layer,
      total: layerOf.get(layer)?.total ?? 0,
      last_24h: dayOf.get(layer) ?? 0,
    })),
  };
}
