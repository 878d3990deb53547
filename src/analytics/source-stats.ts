import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client';
import type { Layer, Region, SourceTier } from '../vocab';
import { iso } from './sql';

export interface SourceQuery {
  tier?: SourceTier;
  region?: Region;
  layer?: Layer;
}

interface SourceRow {
  id: string;
  name: string;
  url: string | null;
  tier: string;
  language: string | null;
  signal_count: number;
  last_seen_at: Date | string | null;
  connector: string | null;
  enabled: boolean;
  last_polled_at: Date | string | null;
  last_success_at: Date | string | null;
  last_error: string | null;
  consecutive_failures: number;
  last_poll_items: number | null;
  unread_language_items: number;
  regions: { name: string; signal_count: number }[] | null;
  layers: { name: string; signal_count: number }[] | null;
}

/**
 * Active sources (at least one signal, or polled by an enabled connector, so a failing feed
 * shows its health) with their coverage by region and layer, read from the
 * `source_coverage` rows ingest keeps current. `region`/`layer` keep sources that have covered
 * them; the coverage lists stay complete. Ordered by signal count, then name.
 */
export async function listSources(db: Database, q: SourceQuery) {
  const rows = await queryRows<SourceRow>(
    db,
    sql`SELECT s.id, s.name, s.url, s.tier, s.language, s.signal_count::int AS signal_count, s.last_seen_at,
          s.connector, s.enabled, s.last_polled_at, s.last_success_at, s.last_error,
          s.consecutive_failures::int AS consecutive_failures, s.last_poll_items,
          s.unread_language_items::int AS unread_language_items,
          (SELECT json_agg(json_build_object('name', r.region, 'signal_count', r.n) ORDER BY r.n DESC, r.region)
             FROM (SELECT region, sum(signal_count)::int AS n FROM source_coverage
                   WHERE source_id = s.id AND region <> '' GROUP BY region) r) AS regions,
          (SELECT json_agg(json_build_object('name', l.threat_layer, 'signal_count', l.n) ORDER BY l.n DESC, l.threat_layer)
             FROM (SELECT threat_layer, sum(signal_count)::int AS n FROM source_coverage
                   WHERE source_id = s.id GROUP BY threat_layer) l) AS layers
        FROM sources s
        WHERE (s.signal_count > 0 OR (s.connector IS NOT NULL AND s.enabled))
          ${q.tier ? sql`AND s.tier = ${q.tier}` : sql``}
          ${
            q.region || q.layer
              ? sql`AND EXISTS (SELECT 1 FROM source_coverage c WHERE c.source_id = s.id
                   ${q.region ? sql`AND c.region = ${q.region}` : sql``}
                   ${q.layer ? sql`AND c.threat_layer = ${q.layer}` : sql``})`
              : sql``
          }
        ORDER BY s.signal_count DESC, s.name`,
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    url: r.url,
    tier: r.tier,
    language: r.language,
    signal_count: r.signal_count,
    last_seen_at: iso(r.last_seen_at),
    coverage: { regions: r.regions ?? [], layers: r.layers ?? [] },
    connector: r.connector,
    enabled: r.enabled,
    last_polled_at: iso(r.last_polled_at),
    last_success_at: iso(r.last_success_at),
    last_error: r.last_error,
    consecutive_failures: r.consecutive_failures,
    last_poll_items: r.last_poll_items,
    unread_language: r.unread_language_items,
  }));
}
