import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../src/db/client';
import { ingestSignals } from '../../src/ingest/pipeline';
import { withTestApp, type TestAppOptions } from '../support/harness';

/** A test signal with the event it belongs to (`event`: a name shared by its members). */
export interface EventItem {
  name: string;
  event: string;
  layer: string;
  score: number;
  country?: string;
  published: string;
  valence?: string;
}

/**
 * Ingests `items` and then groups them into events by hand (what the linker would decide is
 * not what these tests pin): each group's event takes the id of its first item, as a founded
 * event does, and its row is rebuilt from its members. Returns ids by item name and event ids
 * by event name.
 */
export async function seedEvents(db: Database, items: EventItem[], urlPrefix: string) {
  const result = await ingestSignals(
    db,
    items.map((item) => ({
      threat_layer: item.layer,
      significance_score: item.score,
      signal_valence: item.valence ?? 'crisis',
      // Texts that share nothing, so no linker joins them on its own.
      title: `Report ${item.name} ${urlPrefix}`,
      content_display: `Distinct account ${item.name} number ${Math.random().toString(36).slice(2)}.`,
      country_codes: item.country ? [item.country] : [],
      published_at: item.published,
      source_url: `https://${item.name.toLowerCase()}.example.com/${urlPrefix}/${item.name}`,
      source: { name: `Outlet ${item.name}`, tier: 'community' },
    })),
  );
  if (result.accepted !== items.length) throw new Error(`seedEvents: ${JSON.stringify(result)}`);
  const rows = await queryRows<{ id: string; source_url: string }>(
    db,
    sql`SELECT id, source_url FROM signals WHERE source_url LIKE ${`%/${urlPrefix}/%`}`,
  );
  const ids = new Map(
    items.map((item) => [item.name, rows.find((r) => r.source_url.endsWith(`/${item.name}`))!.id]),
  );
  const events = new Map<string, string>();
  for (const item of items) if (!events.has(item.event)) events.set(item.event, ids.get(item.name)!);
  for (const item of items) {
    await db.execute(
      // The score as given: what these tests pin is reading, not the corroboration term.
      sql`UPDATE signals SET event_id = ${events.get(item.event)!}::uuid, significance_score = ${item.score},
            base_score = ${item.score} WHERE id = ${ids.get(item.name)!}::uuid`,
    );
  }
  await rebuildEvents(db, [...events.values()]);
  return { ids, events };
}

/** Rebuilds the rows (and members' lead flags and corroboration) of `eventIds` from their members. */
export async function rebuildEvents(db: Database, eventIds: string[]) {
  for (const id of eventIds) {
    await db.execute(sql`
      INSERT INTO events (id, threat_layer, country_codes, first_seen_at, last_seen_at, lead_signal_id, max_score,
                          signal_count, publisher_count, publisher_families)
      SELECT ${id}::uuid, (array_agg(threat_layer ORDER BY published_at, id))[1],
             coalesce((SELECT array_agg(DISTINCT c ORDER BY c) FROM signals m, unnest(m.country_codes) c
                       WHERE m.event_id = ${id}::uuid AND m.retracted_at IS NULL), '{}'),
             min(published_at), max(published_at),
             (array_agg(id ORDER BY significance_score DESC, published_at, id))[1], max(significance_score),
             count(*), count(*), array_agg(source_id::text)
      FROM signals WHERE event_id = ${id}::uuid AND retracted_at IS NULL
      ON CONFLICT (id) DO UPDATE SET threat_layer = excluded.threat_layer, country_codes = excluded.country_codes,
        first_seen_at = excluded.first_seen_at, last_seen_at = excluded.last_seen_at,
        lead_signal_id = excluded.lead_signal_id, max_score = excluded.max_score,
        signal_count = excluded.signal_count, publisher_count = excluded.publisher_count,
        publisher_families = excluded.publisher_families, merged_into = NULL`);
    await db.execute(sql`
      UPDATE signals s SET event_lead = (s.id = e.lead_signal_id), corroboration = e.publisher_count
      FROM events e WHERE e.id = ${id}::uuid AND s.event_id = e.id`);
  }
  // Events left without members (their founders moved) are gone, as the linker would leave them.
  await db.execute(sql`DELETE FROM events e WHERE merged_into IS NULL
    AND NOT EXISTS (SELECT 1 FROM signals s WHERE s.event_id = e.id)`);
}

/**
 * A test app seeded with `items` (see seedEvents); `nameOf` maps each signal id back to its
 * item's name once the suite is set up.
 */
export function withEventsApp(items: EventItem[], urlPrefix: string, options: TestAppOptions = {}) {
  const nameOf = new Map<string, string>();
  const app = withTestApp({
    ...options,
    seed: async (db) => {
      const { ids } = await seedEvents(db, items, urlPrefix);
      for (const [name, id] of ids) nameOf.set(id, name);
    },
  });
  return { app, nameOf };
}
