import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client';
import { regionOf } from '../vocab';
import { compoundCrisis, CRISIS, type LayerStats } from './formulas';
import { anyOf, atEdges, DAY_MS, inDays, inHoursBesideDays, spanOf, windowOf } from './sql';

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
 * part of each country's picture). Events are counted, not echoes: counts, crisis counts and
 * mean scores are over founders (`id = event_id`, each event once, with its founder's own
 * score); the max is over every report (the strongest report is the event's severity). Scores
 * are the reports' own (`base_score`), as the aggregates hold them. One query aggregates both windows by (country, layer) from
 * the whole days of `signal_country_daily`, the remaining whole hours of `signal_country_hourly`,
 * plus the partial hours at the windows' ends from
 * the signals table (an hour can be whole in the chronic window and partial in the acute one:
 * each row says which windows it counts in). The pure `compoundCrisis` decides which countries
 * qualify and how severe they are. The answer holds every crisis of both windows, before
 * `min_score` and `limit` (`selectCrises`), so one cached computation serves every request.
 */
export async function compoundCrises(db: Database, now: Date) {
  const acuteStart = new Date(now.getTime() - CRISIS.windows.acute * DAY_MS);
  const chronicStart = new Date(now.getTime() - CRISIS.windows.chronic * DAY_MS);
  const acute = spanOf(acuteStart, now);
  const chronic = spanOf(chronicStart, now);
  const rows = await queryRows<PairRow>(
    db,
    sql`SELECT country, threat_layer,
          coalesce(sum(n) FILTER (WHERE a), 0)::int AS a_count, (sum(s) FILTER (WHERE a))::float8 AS a_sum,
          (max(m) FILTER (WHERE a))::float8 AS a_max, coalesce(sum(c) FILTER (WHERE a), 0)::int AS a_crisis,
          coalesce(sum(n) FILTER (WHERE ch), 0)::int AS c_count, coalesce(sum(s) FILTER (WHERE ch), 0)::float8 AS c_sum,
          coalesce(max(m) FILTER (WHERE ch), 0)::float8 AS c_max, coalesce(sum(c) FILTER (WHERE ch), 0)::int AS c_crisis
        FROM (
          SELECT country, threat_layer, event_count AS n, event_score_sum AS s, score_max AS m, event_crisis_count AS c,
                 ${inDays(acute)} AS a, ${inDays(chronic)} AS ch
          FROM signal_country_daily WHERE ${anyOf([inDays(acute), inDays(chronic)])}
          UNION ALL
          SELECT country, threat_layer, event_count, event_score_sum, score_max, event_crisis_count,
                 ${inHoursBesideDays(acute)}, ${inHoursBesideDays(chronic)}
          FROM signal_country_hourly WHERE ${anyOf([inHoursBesideDays(acute), inHoursBesideDays(chronic)])}
          UNION ALL
          SELECT code, threat_layer, (id = event_id)::int,
                 CASE WHEN id = event_id THEN coalesce(base_score, significance_score) ELSE 0 END,
                 coalesce(base_score, significance_score), (id = event_id AND signal_valence = 'crisis')::int,
                 ${atEdges(acute)}, ${atEdges(chronic)}
          FROM signals, unnest(country_codes) AS code
          WHERE ${anyOf([atEdges(acute), atEdges(chronic)])} AND retracted_at IS NULL
        ) x
        GROUP BY country, threat_layer
        HAVING bool_or(ch)`,
  );
  const byCountry = new Map<string, PairRow[]>();
  for (const row of rows) byCountry.set(row.country, [...(byCountry.get(row.country) ?? []), row]);

  const starts: Record<WindowType, Date> = { acute: acuteStart, chronic: chronicStart };
  return (['acute', 'chronic'] as const).map((windowType) => {
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
      .filter((x) => x.crisis !== null)
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
    return { window_type: windowType, window: windowOf(starts[windowType], now), data: crises };
  });
}

/** The answer for one request: the windows asked for, their crises from `min_score`, at most `limit`. */
export function selectCrises(
  all: Awaited<ReturnType<typeof compoundCrises>>,
  q: { windows: WindowType[]; minScore: number; limit: number },
) {
  return all
    .filter((w) => q.windows.includes(w.window_type))
    .map(({ data, ...w }) => {
      const kept = data.filter((c) => c.composite_severity >= q.minScore);
      return { ...w, total: kept.length, data: kept.slice(0, q.limit) };
    });
}
