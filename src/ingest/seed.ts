import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client';
import { generateDemoSignals } from './demo';
import { ingestSignals, type IngestResult } from './pipeline';

const DEMO_SIGNAL_COUNT = 6000;
const BATCH = 1000;

/** True when no signal has been ingested yet. */
export async function isEmpty(db: Database): Promise<boolean> {
  const [row] = await queryRows<{ any: boolean }>(db, sql`SELECT EXISTS (SELECT 1 FROM signals) AS any`);
  return !row?.any;
}

/**
 * Loads `count` generated demo signals through the real ingest pipeline, oldest first in
 * batches, so anomaly baselines build up as they would from a live stream.
 */
export async function seedDemo(
  db: Database,
  options: { count?: number; now: Date; seed?: number; onProgress?: (done: number, total: number) => void },
): Promise<IngestResult> {
  const count = options.count ?? DEMO_SIGNAL_COUNT;
  const items = generateDemoSignals({ count, now: options.now, seed: options.seed });
  const total: IngestResult = { accepted: 0, duplicates: 0, rejected: 0, errors: [] };
  for (let i = 0; i < items.length; i += BATCH) {
    const result = await ingestSignals(db, items.slice(i, i + BATCH), { now: options.now });
    total.accepted += result.accepted;
    total.duplicates += result.duplicates;
    total.rejected += result.rejected;
    total.errors.push(...result.errors.map((e) => ({ ...e, index: e.index + i })));
    options.onProgress?.(Math.min(i + BATCH, items.length), items.length);
  }
  return total;
}
