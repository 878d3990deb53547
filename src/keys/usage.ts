import { sql } from 'drizzle-orm';
import { rootDatabase, type Database } from '../db/client';
import { apiKeys } from '../db/schema';

interface Batch {
  pending: Map<string, { count: number; lastUsed: Date }>;
  writing: Promise<void> | null;
}

// Per database handle (a Worker's handle lives for one request, the Node server's for the
// process), so a batch never outlives the connection it is written through. Keyed by the shared
// handle, not a request's timed view of it, so uses of concurrent requests share one batch and
// `flushUsage` sees them all.
const batches = new WeakMap<Database, Batch>();

async function write(db: Database, rows: [string, { count: number; lastUsed: Date }][]): Promise<void> {
  const values = sql.join(
    rows.map(
      ([id, use]) => sql`(${id}::uuid, ${use.count}::bigint, ${use.lastUsed.toISOString()}::timestamptz)`,
    ),
    sql`, `,
  );
  await db.execute(sql`
    UPDATE ${apiKeys}
    SET requests_total = ${apiKeys.requestsTotal} + v.n,
        last_used_at = GREATEST(${apiKeys.lastUsedAt}, v.t)
    FROM (VALUES ${values}) AS v(id, n, t)
    WHERE ${apiKeys.id} = v.id`);
}

/** Writes what is pending, one UPDATE at a time; uses arriving meanwhile join the next one. */
async function drain(db: Database, batch: Batch): Promise<void> {
  try {
    while (batch.pending.size > 0) {
      const rows = [...batch.pending];
      batch.pending = new Map();
      await write(db, rows);
    }
  } finally {
    batch.writing = null;
  }
}

/**
 * Records one use of `keyId` (requests_total, last_used_at) without making the request wait:
 * returns the write to hand to `waitUntil`, or null when a write already in flight will pick
 * this use up. Under load this batches many requests into one UPDATE.
 */
export function recordUse(view: Database, keyId: string, at: Date): Promise<void> | null {
  const db = rootDatabase(view);
  let batch = batches.get(db);
  if (!batch) batches.set(db, (batch = { pending: new Map(), writing: null }));
  const use = batch.pending.get(keyId);
  if (use) {
    use.count += 1;
    if (at > use.lastUsed) use.lastUsed = at;
  } else batch.pending.set(keyId, { count: 1, lastUsed: at });
  if (batch.writing) return null;
  batch.writing = drain(db, batch);
  return batch.writing;
}

/** Waits until every use recorded so far is written (before usage figures are read). */
export async function flushUsage(view: Database): Promise<void> {
  const db = rootDatabase(view);
  const batch = batches.get(db);
  if (!batch) return;
  while (batch.writing || batch.pending.size > 0) {
    batch.writing ??= drain(db, batch);
    await batch.writing.catch(() => {});
  }
}
