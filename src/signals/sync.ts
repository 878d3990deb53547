import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { signals } from '../db/schema';

/**
 * Retracts signal `id` (an upstream withdrawal at `at`): it stops being served everywhere but
 * `updated_since` sync, which lists it with `retracted_at`. `updated_at` becomes the database's
 * now, not `at`: sync clients ask for changes since the last `updated_at` they saw, and a
 * change stamped with an older upstream time would land behind them and never be seen.
 * Returns false when the id is unknown or already retracted (a retraction happens once).
 */
export async function retractSignal(db: Database, id: string, at: Date = new Date()): Promise<boolean> {
  const rows = await db
    .update(signals)
    .set({ retractedAt: at, updatedAt: sql`now()` })
    .where(and(eq(signals.id, id), isNull(signals.retractedAt)))
    .returning({ id: signals.id });
  return rows.length > 0;
}
