import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client';
import { regionOf } from '../vocab';
import { compoundCrisis, CRISIS, type LayerStats } from './formulas';
import { DAY_MS, windowOf } from './sql';

export type WindowType = keyof typeof CRISIS.windows;

interface PairRow {
  country: string;
  threat_layer: string;
  a_count: number;
  a_sum: number | null;
  a_max: number | null;
  a_crisis: number;
  c_count: number;
  c_sum: number;
  c_max: number;
  c_crisis: number;
}

/**
 * Compound crises per window: every country a signal names counts (a cross-border event is
 * part of each country's picture). One query aggregates both windows by (country, layer); the
 * pure `compoundCrisis` decides which countries qualify and how severe they are.
 */
export async function compoundCrises(
  db: Database,
  now: Date,
  q: { windows: WindowType[]; minScore: number; limit: number },
) {
  const acuteStart = new Date(now.getTime() - CRISIS.windows.acute * DAY_MS);
  const chronicStart = new Date(now.getTime() - CRISIS.windows.chronic * DAY_MS);
  const a = acuteStart.toISOString();
  const rows = await queryRows<PairRow>(
    db,
    sql`SELECT code AS country, threat_layer,
          (count(*) FILTER (WHERE published_at > ${a}::timestamptz))::int AS a_count,
          (sum(significance_score) FILTER (WHERE published_at > ${a}::timestamptz))::float8 AS a_sum,
          (max(significance_score) FILTER (WHERE published_at > ${a}::timestamptz))::float8 AS a_max,
          (count(*) FILTER (WHERE published_at > ${a}::timestamptz AND signal_valence = 'crisis'))::int AS a_crisis,
          count(*)::int AS c_count, sum(significance_score)::float8 AS c_sum,
          max(significance_score)::float8 AS c_max,
          (count(*) FILTER (WHERE signal_valence = 'crisis'))::int AS c_crisis
        FROM signals, unnest(country_codes) AS code
        WHERE published_at > ${chronicStart.toISOString()}::timestamptz AND published_at <= ${now.toISOString()}::timestamptz
        GROUP BY code, threat_layer`,
  );
  const byCountry = new Map<string, PairRow[]>();
  for (const row of rows) byCountry.set(row.country, [...(byCountry.get(row.country) ?? []), row]);

  const starts: Record<WindowType, Date> = { acute: acuteStart, chronic: chronicStart };
  return q.windows.map((windowType) => {
    const stats = (row: PairRow): LayerStats =>
      windowType === 'acute'
        ? {
            layer: row.threat_layer,
            signalCount: row.a_count,
            scoreSum: row.a_sum ?? 0,
            scoreMax: row.a_max ?? 0,
            crisisCount: row.a_crisis,
          }
        : {
            layer: row.threat_layer,
            signalCount: row.c_count,
            scoreSum: row.c_sum,
            scoreMax: row.c_max,
            crisisCount: row.c_crisis,
          };
    const crises = [...byCountry.entries()]
      .map(([country, pairs]) => ({ country, crisis: compoundCrisis(pairs.map(stats)) }))
      .filter((x) => x.crisis !== null && x.crisis.compositeSeverity >= q.minScore)
      .map(({ country, crisis }) => ({
        country_code: country,
        region: regionOf(country),
        composite_severity: crisis!.compositeSeverity,
        layer_count: crisis!.layers.length,
        layers: crisis!.layers.map((l) => ({
          threat_layer: l.layer,
          severity: l.severity,
          share: l.share,
          signal_count: l.signalCount,
          crisis_count: l.crisisCount,
          mean_score: l.meanScore,
          max_score: l.maxScore,
        })),
      }))
      .sort(
        (x, y) =>
          y.composite_severity - x.composite_severity ||
          y.layer_count - x.layer_count ||
          x.country_code.localeCompare(y.country_code),
      );
    return {
      window_type: windowType,
      window: windowOf(starts[windowType], now),
      total: crises.length,
      data: crises.slice(0, q.limit),
    };
  });
}
