import { eq } from 'drizzle-orm';
import type { Database } from '../db/client';
import { sources } from '../db/schema';
import { CATALOGUE } from './catalogue';
import { CONNECTOR_NAMES, type CatalogueEntry, type ConnectorName } from './types';

export type SourceRow = typeof sources.$inferSelect;

const catalogueRow = (entry: CatalogueEntry) => ({
  name: entry.name,
  url: entry.url,
  tier: entry.tier,
  connector: entry.connector,
  options: entry.options ?? {},
  intervalMinutes: entry.interval_minutes,
  enabled: entry.enabled ?? true,
});

/** Inserts the catalogue sources missing by name; returns how many were added. */
export async function seedCatalogue(db: Database): Promise<number> {
  const rows = await db
    .insert(sources)
    .values(CATALOGUE.map(catalogueRow))
    .onConflictDoNothing({ target: sources.name })
    .returning({ id: sources.id });
  return rows.length;
}

/** The source row of that name. */
export async function sourceByName(db: Database, name: string): Promise<SourceRow | undefined> {
  const [row] = await db.select().from(sources).where(eq(sources.name, name)).limit(1);
  return row;
}

/** The source a document for `connector` is ingested under (see `resolveSource`). */
export class SourceResolutionError extends Error {
  override name = 'SourceResolutionError';
  constructor(
    readonly code: 'unknown_connector' | 'not_found' | 'invalid_request',
    message: string,
  ) {
    super(message);
  }
}

export const isConnectorName = (name: string): name is ConnectorName =>
  (CONNECTOR_NAMES as readonly string[]).includes(name);

/**
 * The source row to ingest a `connector` document under: the one named `name` (it must exist and
 * belong to that connector, or to none), else the connector's first catalogue source, else a
 * source named after the connector; the last two are created when missing.
 */
export async function resolveSource(db: Database, connector: string, name?: string): Promise<SourceRow> {
  if (!isConnectorName(connector)) {
    throw new SourceResolutionError(
      'unknown_connector',
      `No connector named ${connector}; one of ${CONNECTOR_NAMES.join(', ')}.`,
    );
  }
  if (name !== undefined) {
    const row = await sourceByName(db, name);
    if (!row) throw new SourceResolutionError('not_found', `No source named ${name}.`);
    if (row.connector && row.connector !== connector) {
      throw new SourceResolutionError(
        'invalid_request',
        `Source ${name} belongs to the ${row.connector} connector, not ${connector}.`,
      );
    }
    return row;
  }
  const entry = CATALOGUE.find((e) => e.connector === connector);
  const wanted = entry
    ? catalogueRow(entry)
    : { name: connector, connector, tier: 'discovered' as const, options: {}, enabled: false };
  await db.insert(sources).values(wanted).onConflictDoNothing({ target: sources.name });
  return (await sourceByName(db, wanted.name))!;
}
