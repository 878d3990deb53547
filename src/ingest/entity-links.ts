import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client';
import { entities, signalEntities } from '../db/schema';
import { chunks } from './chunks';
import { insertRows } from './insert-rows';
import type { ExtractedEntity } from '../reading/entities';

/** An entity's key among a batch's: its type and normalised name. */
const keyOf = (e: Pick<ExtractedEntity, 'type' | 'name'>) => `${e.type}:${e.name.toLowerCase()}`;

/**
 * The ids of the entities a batch names (by `keyOf`), creating the ones that are new. Needs no
 * signal row, so ingest sends it before the batch's signals are written.
 */
export async function entityIds(
  db: Database,
  found: readonly ExtractedEntity[],
): Promise<Map<string, string>> {
  const distinct = new Map<string, { name: string; type: string; normalized: string }>();
  for (const e of found) {
    distinct.set(keyOf(e), { name: e.name, type: e.type, normalized: e.name.toLowerCase() });
  }
  const ids = new Map<string, string>();
  // Same global lock order as for sources: concurrent ingests share entities.
  const ordered = [...distinct.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e);
  // Known entities are only read (a lock on a shared entity would be held to the commit); new
  // ones are inserted, and one a concurrent ingest inserted first is read back.
  for (const part of chunks(ordered)) {
    const rows = await db
      .insert(entities)
      .values(part)
      .onConflictDoNothing({ target: [entities.normalized, entities.type] })
      .returning({ id: entities.id, type: entities.type, normalized: entities.normalized });
    for (const row of rows) ids.set(`${row.type}:${row.normalized}`, row.id);
    const unseen = part.filter((e) => !ids.has(`${e.type}:${e.normalized}`));
    if (unseen.length === 0) continue;
    const known = await queryRows<{ id: string; type: string; normalized: string }>(
      db,
      sql`SELECT e.id, e.type, e.normalized FROM entities e
          JOIN jsonb_to_recordset(${JSON.stringify(unseen)}::jsonb) AS v(type text, normalized text)
            ON e.type = v.type AND e.normalized = v.normalized`,
    );
    for (const row of known) ids.set(`${row.type}:${row.normalized}`, row.id);
  }
  return ids;
}

/** Links each new signal (written) to the entities extracted from it, whose ids `entityIds` gave. */
export async function linkEntities(
  db: Database,
  found: { id: string; entities: ExtractedEntity[] }[],
  ids: ReadonlyMap<string, string>,
) {
  const links = found.flatMap(({ id, entities: list }) =>
    list.map((e) => ({ signalId: id, entityId: ids.get(keyOf(e))!, mentions: e.count })),
  );
  for (const part of chunks(links, 1000)) {
    await db.execute(sql`${insertRows(signalEntities, part)} ON CONFLICT DO NOTHING`);
  }
}
