import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client';
import type { Layer, Region } from '../vocab';
import { compositeScore } from './formulas';
import { iso } from './sql';

export interface SnapshotQuery {
  region?: Region;
  layer?: Layer;
  start: Date;
  end: Date;
  limit: number;
}

interface HourlyRow {
  bucket: Date | string;
  region: string;
  threat_layer: string;
  signal_count: number;
  score_sum: number;
  score_max: number;
  crisis_count: number;
  anomaly_count: number;
}

/**
 * Hourly composite scores by region and layer, newest first, from the `signal_hourly` buckets
 * the ingest pipeline keeps current: one indexed read, never a scan of signals. A bucket is
 * included when its hour starts within [start truncated to the hour, end].
 */
export async function listSnapshots(db: Database, q: SnapshotQuery) {
  const rows = await queryRows<HourlyRow>(
    db,
    sql`SELECT bucket, region, threat_layer, signal_count::int AS signal_count, score_sum::float8 AS score_sum,
          score_max::float8 AS score_max, crisis_count::int AS crisis_count, anomaly_count::int AS anomaly_count
        FROM signal_hourly
        WHERE bucket >= date_trunc('hour', ${q.start.toISOString()}::timestamptz) AND bucket <= ${q.end.toISOString()}::timestamptz
          ${q.region ? sql`AND region = ${q.region}` : sql``}
          ${q.layer ? sql`AND threat_layer = ${q.layer}` : sql``}
        ORDER BY bucket DESC, region, threat_layer
        LIMIT ${q.limit + 1}`,
  );
  return {
    hasMore: rows.length > q.limit,
    rows: rows.slice(0, q.limit).map((r) => ({
      bucket: iso(r.bucket)!,
      // Ingest writes only vocabulary values here ('' for signals without a country).
      region: r.region === '' ? null : (r.region as Region),
      threat_layer: r.threat_layer as Layer,
      composite_score: compositeScore({
        signalCount: r.signal_count,
        scoreSum: r.score_sum,
        scoreMax: r.score_max,
        crisisCount: r.crisis_count,
      }),
      signal_count: r.signal_count,
      mean_score: Math.round((r.score_sum / r.signal_count) * 100) / 100,
      max_score: r.score_max,
      crisis_count: r.crisis_count,
      anomaly_count: r.anomaly_count,
    })),
  };
}
