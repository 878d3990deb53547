import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client';
import { LAYERS, SOURCE_TIERS } from '../vocab';
import { DAY_MS } from './sql';

interface StatsRow {
  total: number;
  last_24h: number;
  last_7d: number;
  layers: { name: string; total: number; last_24h: number }[] | null;
  languages: { name: string; signal_count: number }[] | null;
  tiers: { name: string; total: number; active: number }[] | null;
}

/** Platform statistics in one round trip; volumes count signals published in the window. */
export async function platformStats(db: Database, now: Date) {
  const day = new Date(now.getTime() - DAY_MS).toISOString();
  const week = new Date(now.getTime() - 7 * DAY_MS).toISOString();
  const [row] = await queryRows<StatsRow>(
    db,
    sql`SELECT
          (SELECT count(*)::int FROM signals) AS total,
          (SELECT count(*)::int FROM signals WHERE published_at > ${day}::timestamptz AND published_at <= ${now.toISOString()}::timestamptz) AS last_24h,
          (SELECT count(*)::int FROM signals WHERE published_at > ${week}::timestamptz AND published_at <= ${now.toISOString()}::timestamptz) AS last_7d,
          (SELECT json_agg(json_build_object('name', threat_layer, 'total', n, 'last_24h', d))
             FROM (SELECT threat_layer, count(*)::int AS n,
                          (count(*) FILTER (WHERE published_at > ${day}::timestamptz AND published_at <= ${now.toISOString()}::timestamptz))::int AS d
                   FROM signals GROUP BY threat_layer) l) AS layers,
          (SELECT json_agg(json_build_object('name', language, 'signal_count', n) ORDER BY n DESC, language)
             FROM (SELECT coalesce(language, 'und') AS language, count(*)::int AS n FROM signals GROUP BY 1) g) AS languages,
          (SELECT json_agg(json_build_object('name', tier, 'total', n, 'active', a))
             FROM (SELECT tier, count(*)::int AS n, (count(*) FILTER (WHERE signal_count > 0))::int AS a
                   FROM sources GROUP BY tier) t) AS tiers`,
  );
  const layerOf = new Map((row?.layers ?? []).map((l) => [l.name, l]));
  const tierOf = new Map((row?.tiers ?? []).map((t) => [t.name, t]));
  const languages = row?.languages ?? [];
  return {
    signals: { total: row?.total ?? 0, last_24h: row?.last_24h ?? 0, last_7d: row?.last_7d ?? 0 },
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
      last_24h: layerOf.get(layer)?.last_24h ?? 0,
    })),
  };
}
