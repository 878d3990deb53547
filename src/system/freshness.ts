import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client';

/** A source counts as stale when it has published nothing for this long. */
const STALE_SOURCE_HOURS = 48;

export interface Freshness {
  latest_ingested_at: string | null;
  latest_published_at: string | null;
  ingest_lag_seconds: number | null;
  signals_last_hour: number;
  stale_source_hours: number;
  stale_sources: { id: string; name: string; tier: string; last_seen_at: string | null }[];
  live_sources: LiveSourceLag[];
  checked_at: string;
}

/** How far behind one polled source is. */
interface LiveSourceLag {
  id: string;
  name: string;
  connector: string;
  last_success_at: string | null;
  /** Seconds since its last successful poll; null before the first. */
  poll_lag_seconds: number | null;
  /** Seconds since the newest item it published; null before the first. */
  item_lag_seconds: number | null;
  consecutive_failures: number;
}

/**
 * What freshness reads, all of it from counters ingest and the poller keep (never the signals
 * table, whose size it would follow): the ingest clock (`ingest_minutes`, per minute and source)
 * and the sources' own rows (`last_ingested_at`, `last_seen_at`, poll health). Plain JSON, so it can be cached; `freshnessAt` derives the lags at answer time.
 */
export interface FreshnessCounts {
  latest_ingested_at: string | null;
  latest_published_at: string | null;
  signals_last_hour: number;
  stale_sources: Freshness['stale_sources'];
  live_sources: {
    id: string;
    name: string;
    connector: string;
    last_success_at: string | null;
    last_seen_at: string | null;
    consecutive_failures: number;
  }[];
}

const iso = (value: Date | string | null | undefined) => (value ? new Date(value).toISOString() : null);

const secondsSince = (now: Date, value: string | null): number | null =>
  value ? Math.max(0, Math.round((now.getTime() - Date.parse(value)) / 1000)) : null;

/**
 * Reads the freshness counters as of `now`. `signals_last_hour` sums the minutes of the ingest
 * clock that overlap the last hour (so it may include up to one minute more). One statement over
 * small tables: the last hour's minutes (by their primary key) and the sources.
 */
export async function readFreshnessCounts(db: Database, now: Date): Promise<FreshnessCounts> {
  const staleBefore = new Date(now.getTime() - STALE_SOURCE_HOURS * 3600_000);
  // One round trip: the lists come back as json arrays, in their order.
  const [row] = await queryRows<{
    ingested: Date | string | null;
    published: Date | string | null;
    last_hour: number;
    stale: Json<StaleRow[]>;
    live: Json<LiveRow[]>;
  }>(
    db,
    sql`SELECT (SELECT max(last_ingested_at) FROM sources) AS ingested,
               (SELECT max(last_seen_at) FROM sources) AS published,
               (SELECT coalesce(sum(signal_count), 0) FROM ingest_minutes
                WHERE minute > ${now}::timestamptz - interval '61 minutes')::int AS last_hour,
               (SELECT coalesce(json_agg(t ORDER BY t.last_seen_at ASC NULLS FIRST, t.name), '[]') FROM (
                  SELECT id, name, tier, last_seen_at FROM sources
                  WHERE last_seen_at IS NULL OR last_seen_at < ${staleBefore}
                  ORDER BY last_seen_at ASC NULLS FIRST, name LIMIT 100) t) AS stale,
               (SELECT coalesce(json_agg(t ORDER BY t.last_success_at ASC NULLS FIRST, t.name), '[]') FROM (
                  SELECT id, name, connector, last_success_at, last_seen_at, consecutive_failures
                  FROM sources WHERE connector IS NOT NULL AND enabled
                  ORDER BY last_success_at ASC NULLS FIRST, name LIMIT 200) t) AS live`,
  );
  const stale = parsed(row?.stale);
  const live = parsed(row?.live);
  return {
    latest_ingested_at: iso(row?.ingested),
    latest_published_at: iso(row?.published),
    signals_last_hour: row?.last_hour ?? 0,
    stale_sources: stale.map((s) => ({ ...s, last_seen_at: iso(s.last_seen_at) })),
    live_sources: live.map((s) => ({
      ...s,
      last_success_at: iso(s.last_success_at),
      last_seen_at: iso(s.last_seen_at),
    })),
  };
}

type StaleRow = { id: string; name: string; tier: string; last_seen_at: string | null };
type LiveRow = FreshnessCounts['live_sources'][number];
/** A json column: parsed by most drivers, a string from some. */
type Json<T> = T | string | null | undefined;
const parsed = <T>(value: Json<T[]>): T[] =>
  typeof value === 'string' ? (JSON.parse(value) as T[]) : (value ?? []);

/** The freshness answer at `now` from (possibly cached) counts: lags are always to `now`. */
export function freshnessAt(counts: FreshnessCounts, now: Date): Freshness {
  return {
    latest_ingested_at: counts.latest_ingested_at,
    latest_published_at: counts.latest_published_at,
    ingest_lag_seconds: secondsSince(now, counts.latest_ingested_at),
    signals_last_hour: counts.signals_last_hour,
    stale_source_hours: STALE_SOURCE_HOURS,
    stale_sources: counts.stale_sources,
    live_sources: counts.live_sources.map((s) => ({
      id: s.id,
      name: s.name,
      connector: s.connector,
      last_success_at: s.last_success_at,
      poll_lag_seconds: secondsSince(now, s.last_success_at),
      item_lag_seconds: secondsSince(now, s.last_seen_at),
      consecutive_failures: s.consecutive_failures,
    })),
    checked_at: now.toISOString(),
  };
}
