import { eq } from 'drizzle-orm';
import type { Database } from '../db/client';
import { sources } from '../db/schema';
import { CATALOGUE } from './catalogue';

export type SourceRow = typeof sources.$inferSelect;

/** Inserts the catalogue sources missing by name; returns how many were added. */
export async function seedCatalogue(db: Database): Promise<number> {
  const rows = await db
    .insert(sources)
    .values(
      CATALOGUE.map((entry) => ({
        name: entry.name,
        url: entry.url,
        tier: entry.tier,
        connector: entry.connector,
        options: entry.options ?? {},
        intervalMinutes: entry.interval_minutes,
        enabled: entry.enabled ?? true,
      })),
    )
    .onConflictDoNothing({ target: sources.name })
    .returning({ id: sources.id });
  return rows.length;
}

/** The source row of that name. */
export async function sourceByName(db: Database, name: string): Promise<SourceRow | undefined> {
  const [row] = await db.select().from(sources).where(eq(sources.name, name)).limit(1);
  return row;
}
