import { asc, desc, eq } from 'drizzle-orm';
import type { Database } from '../db/client';
import { signals, sources } from '../db/schema';
import { signalColumns, signalConditions, type SignalFilter, type SignalRow } from '../signals/query';

/**
 * The newest `limit` signals matching `filter`, newest first (then id, for a total order).
 * Feeds and the widget show what is new; ranked by score they would never change.
 */
export async function recentSignals(db: Database, filter: SignalFilter, limit: number): Promise<SignalRow[]> {
  return db
    .select(signalColumns)
    .from(signals)
    .innerJoin(sources, eq(sources.id, signals.sourceId))
    .where(signalConditions(filter))
    .orderBy(desc(signals.publishedAt), asc(signals.id))
    .limit(limit);
}
