import { inArray, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { sources } from '../db/schema';
import { chunks } from './chunks';
import type { IngestItem } from './validate';

/**
 * One source per name across a batch: each of url, tier and language is the first value any
 * item gave, so an item that names the source without them never erases what another gave.
 */
function batchSources(items: IngestItem[]): Map<string, IngestItem['source']> {
  const byName = new Map<string, IngestItem['source']>();
  for (const { source } of items) {
    const known = byName.get(source.name);
    byName.set(
      source.name,
      known
        ? {
            name: known.name,
            url: known.url ?? source.url,
            tier: known.tier ?? source.tier,
            language: known.language ?? source.language,
          }
        : source,
    );
  }
  return byName;
}

/** A known source's url or language the batch fills in (it had none). */
export interface SourceFill {
  id: string;
  url: string | null;
  language: string | null;
}

/**
 * Creates unknown sources (tier `discovered` unless given) and returns ids by name, with the
 * gaps of known sources to fill (`settleSources` fills them: a source that exists keeps its
 * tier; a missing url or language is filled in, never overwritten). Nothing here locks a row
 * that exists: every ingest of a feed shares its source, and a lock taken here would be held
 * through linking to the commit, queueing concurrent ingests behind each other.
 */
export async function upsertSources(
  db: Database,
  items: IngestItem[],
): Promise<{ ids: Map<string, string>; fills: SourceFill[] }> {
  const ids = new Map<string, string>();
  const fills: SourceFill[] = [];
  // New rows are inserted in one global order (by name), so concurrent ingests creating the
  // same sources wait for each other without deadlocking.
  const ordered = [...batchSources(items).values()].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  const read = (names: string[]) =>
    db
      .select({ id: sources.id, name: sources.name, url: sources.url, language: sources.language })
      .from(sources)
      .where(inArray(sources.name, names));
  for (const part of chunks(ordered)) {
    const known = new Map((await read(part.map((s) => s.name))).map((row) => [row.name, row]));
    const missing = part.filter((s) => !known.has(s.name));
    if (missing.length > 0) {
      const created = await db
        .insert(sources)
        .values(
          missing.map((s) => ({
            name: s.name,
            url: s.url ?? null,
            tier: s.tier ?? 'discovered',
            language: s.language ?? null,
          })),
        )
        .onConflictDoNothing({ target: sources.name })
        .returning({ id: sources.id, name: sources.name });
      for (const row of created) ids.set(row.name, row.id);
      // Created by a concurrent ingest meanwhile: read back, as a known source.
      const raced = missing.filter((s) => !ids.has(s.name)).map((s) => s.name);
      if (raced.length > 0) for (const row of await read(raced)) known.set(row.name, row);
    }
    for (const source of part) {
      const row = known.get(source.name);
      if (!row) continue;
      ids.set(source.name, row.id);
      if ((!row.url && source.url) || (!row.language && source.language))
        fills.push({ id: row.id, url: source.url ?? null, language: source.language ?? null });
    }
  }
  return { ids, fills };
}

/**
 * Locks the batch's sources in id order (concurrent ingests share sources; an UPDATE … FROM takes
 * its rows in no set order) and fills their gaps. Called last, with the counters, so the locks
 * are held only for the commit.
 */
export async function settleSources(db: Database, sourceIds: string[], fills: SourceFill[]): Promise<void> {
  const ids = [...new Set([...sourceIds, ...fills.map((f) => f.id)])].sort();
  if (ids.length === 0) return;
  await db.execute(sql`
    SELECT id FROM sources WHERE id IN (SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid)
    ORDER BY id FOR NO KEY UPDATE`);
  if (fills.length > 0) {
    await db.execute(sql`
      UPDATE sources SET url = coalesce(sources.url, v.url), language = coalesce(sources.language, v.language)
      FROM jsonb_to_recordset(${JSON.stringify(fills)}::jsonb) AS v(id uuid, url text, language text)
      WHERE sources.id = v.id`);
  }
}
