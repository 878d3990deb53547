import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client';

/** A source counts as stale when it has published nothing for this long. */
export const STALE_SOURCE_HOURS = 48;

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
export interface LiveSourceLag {
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

const secondsSince = (now: Date, value: Date | string | null | undefined): number | null =>
  value ? Math.max(0, Math.round((now.getTime() - new Date(value).getTime()) / 1000)) : null;

/** Latest ingest and publish times, lag behind now, and sources that went quiet. */
export async function getFreshness(db: Database, now: Date): Promise<Freshness> {
  const [latest] = await queryRows<{ ingested: Date | null; published: Date | null; last_hour: number }>(
    db,
    sql`SELECT (SELECT max(ingested_at) FROM signals) AS ingested,
               (SELECT max(published_at) FROM signals) AS published,
               (SELECT count(*) FROM signals WHERE ingested_at > ${now}::timestamptz - interval '1 hour')::int AS last_hour`,
  );
  const staleBefore = new Date(now.getTime() - STALE_SOURCE_HOURS * 3600_000);
  const stale = await queryRows<{ id: string; name: string; tier: string; last_seen_at: Date | null }>(
    db,
    sql`SELECT id, name, tier, last_seen_at FROM sources
        WHERE last_seen_at IS NULL OR last_seen_at < ${staleBefore}
        ORDER BY last_seen_at ASC NULLS FIRST, name LIMIT 100`,
  );
  const live = await queryRows<{
    id: string;
    name: string;
    connector: string;
    last_success_at: Date | null;
    last_seen_at: Date | null;
    consecutive_failures: number;
  }>(
    db,
    sql`SELECT id, name, connector, last_success_at, last_seen_at, consecutive_failures::int AS consecutive_failures
        FROM sources WHERE connector IS NOT NULL AND enabled
        ORDER BY last_success_at ASC NULLS FIRST, name LIMIT 200`,
  );
  const iso = (value: Date | string | null | undefined) => (value ? new Date(value).toISOString() : null);
  const ingested = latest?.ingested ? new Date(latest.ingested) : null;
  return {
    latest_ingested_at: iso(ingested),
    latest_published_at: iso(latest?.published),
    ingest_lag_seconds: ingested
      ? Math.max(0, Math.round((now.getTime() - ingested.getTime()) / 1000))
      : null,
    signals_last_hour: latest?.last_hour ?? 0,
    stale_source_hours: STALE_SOURCE_HOURS,
    stale_sources: stale.map((s) => ({ ...s, last_seen_at: iso(s.last_seen_at) })),
    live_sources: live.map((s) => ({
      id: s.id,
      name: s.name,
      connector: s.connector,
      last_success_at: iso(s.last_success_at),
      poll_lag_seconds: secondsSince(now, s.last_success_at),
      item_lag_seconds: secondsSince(now, s.last_seen_at),
      consecutive_failures: s.consecutive_failures,
    })),
    checked_at: now.toISOString(),
  };
}
