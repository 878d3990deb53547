/**
 * The `sources` table's rows: seeded from the catalogue, resolved by name or connector, created,
 * updated and deleted by operators. Poll scheduling state lives in `poll-state.ts`.
 */
import { asc, eq, isNotNull } from 'drizzle-orm';
import type { Database } from '../db/client';
import { signals, sources } from '../db/schema';
import type { SourceTier } from '../vocab';
import { CATALOGUE } from './catalogue';
import { connectorFor } from './registry';
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

/** What an operator sets on a polled source (`/api/v1/admin/sources`, `sources add`). */
export interface SourceSettings {
  connector: ConnectorName;
  name: string;
  url: string;
  tier: SourceTier;
  interval_minutes: number | null;
  enabled: boolean;
  options: Record<string, unknown>;
}

/** The operator's view of a source: its settings and its polling health. */
export function sourceView(row: SourceRow) {
  return {
    id: row.id,
    name: row.name,
    connector: row.connector as ConnectorName | null,
    url: row.url,
    tier: row.tier as SourceTier,
    interval_minutes: row.intervalMinutes,
    enabled: row.enabled,
    options: row.options as Record<string, unknown>,
    signal_count: row.signalCount,
    last_seen_at: row.lastSeenAt?.toISOString() ?? null,
    last_polled_at: row.lastPolledAt?.toISOString() ?? null,
    last_success_at: row.lastSuccessAt?.toISOString() ?? null,
    last_error: row.lastError,
    consecutive_failures: row.consecutiveFailures,
    last_poll_items: row.lastPollItems,
    next_poll_at: row.nextPollAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

/**
 * Why `settings` cannot be polled, or null: the connector must build its request from them
 * (ReliefWeb needs `options.appname`, GDELT `options.query`). Only checked for enabled sources.
 */
export function settingsProblem(settings: SourceSettings, now = new Date()): string | null {
  if (!settings.enabled) return null;
  const connector = connectorFor(settings.connector);
  if (!connector) return `No connector named ${settings.connector}.`;
  try {
    connector.requestUrl?.(
      { name: settings.name, url: settings.url, tier: settings.tier, options: settings.options },
      now,
    );
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Sources that have a connector (the polled ones), by name; `connector` narrows them. */
export async function listPolledSources(db: Database, connector?: ConnectorName): Promise<SourceRow[]> {
  return db
    .select()
    .from(sources)
    .where(connector ? eq(sources.connector, connector) : isNotNull(sources.connector))
    .orderBy(asc(sources.name));
}

export async function sourceById(db: Database, id: string): Promise<SourceRow | undefined> {
  const [row] = await db.select().from(sources).where(eq(sources.id, id)).limit(1);
  return row;
}

/** Adds a source; undefined when the name is taken. Due for polling at once. */
export async function createSource(db: Database, settings: SourceSettings): Promise<SourceRow | undefined> {
  const [row] = await db
    .insert(sources)
    .values({
      name: settings.name,
      connector: settings.connector,
      url: settings.url,
      tier: settings.tier,
      intervalMinutes: settings.interval_minutes,
      enabled: settings.enabled,
      options: settings.options,
    })
    .onConflictDoNothing({ target: sources.name })
    .returning();
  return row;
}

/**
 * Changes a source's settings. A new URL or options drop the conditional-GET validators (they
 * belonged to another document); any change makes it due now. Throws `SourceNameTaken` when the new name is another source's.
 */
export async function updateSource(
  db: Database,
  id: string,
  change: Partial<Omit<SourceSettings, 'connector'>>,
): Promise<SourceRow | undefined> {
  const set: Partial<typeof sources.$inferInsert> = { nextPollAt: null };
  if (change.name !== undefined) set.name = change.name;
  if (change.tier !== undefined) set.tier = change.tier;
  if (change.interval_minutes !== undefined) set.intervalMinutes = change.interval_minutes;
  if (change.enabled !== undefined) set.enabled = change.enabled;
  if (change.url !== undefined || change.options !== undefined) {
    Object.assign(set, { etag: null, lastModified: null });
    if (change.url !== undefined) set.url = change.url;
    if (change.options !== undefined) set.options = change.options;
  }
  if (change.name !== undefined) {
    const taken = await sourceByName(db, change.name);
    if (taken && taken.id !== id) throw new SourceNameTaken(change.name);
  }
  const [row] = await db.update(sources).set(set).where(eq(sources.id, id)).returning();
  return row;
}

export class SourceNameTaken extends Error {
  override name = 'SourceNameTaken';
  constructor(readonly sourceName: string) {
    super(`A source named ${sourceName} already exists.`);
  }
}

/**
 * Deletes a source that never produced a signal. One with signals stays (its signals keep
 * their source; disable it instead): 'has_signals'. 'not_found' when the id is unknown.
 */
export async function deleteSource(
  db: Database,
  id: string,
): Promise<'deleted' | 'has_signals' | 'not_found'> {
  const row = await sourceById(db, id);
  if (!row) return 'not_found';
  const [used] = await db.select({ id: signals.id }).from(signals).where(eq(signals.sourceId, id)).limit(1);
  if (used) return 'has_signals';
  await db.delete(sources).where(eq(sources.id, id));
  return 'deleted';
}
