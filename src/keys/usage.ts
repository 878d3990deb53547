import { sql } from 'drizzle-orm';
import { boundStatement, compileStatement, rootDatabase, runStatement, type Database } from '../db/client';
import { apiKeys } from '../db/schema';

interface Use {
  count: number;
  lastUsed: Date;
}

interface Batch {
  pending: Map<string, Use>;
  writing: Promise<void> | null;
}

/**
 * Most keys whose unwritten uses one process keeps while the database is away. The counts bill
 * and limit users, so a failed write keeps them for the next one; past this many keys, uses of
 * further keys are dropped (a key already waiting keeps counting), so an outage cannot grow
 * memory without end.
 */
export const MAX_PENDING_KEYS = 10_000;

/** Adds `count` uses of `keyId`, last at `at`, to `pending`, unless it is full. */
function addUse(pending: Map<string, Use>, keyId: string, count: number, at: Date): void {
  const use = pending.get(keyId);
  if (use) {
    use.count += count;
    if (at > use.lastUsed) use.lastUsed = at;
  } else if (pending.size < MAX_PENDING_KEYS) pending.set(keyId, { count, lastUsed: at });
}

// Per database handle (a Worker's handle lives for one request, the Node server's for the
// process), so a batch never outlives the connection it is written through. Keyed by the shared
// handle, not a request's timed view of it, so uses of concurrent requests share one batch and
// `flushUsage` sees them all.
const batches = new WeakMap<Database, Batch>();

/**
 * The batch's UPDATE as one fixed text with three arrays, compiled once: under load a batch is
 * written every few requests, and building it with drizzle each time (a fragment and three
 * parameters per key, then drizzle's execute path) was 1–2% of a keyed read's CPU in the profile.
 */
const WRITE = compileStatement(sql`
    UPDATE ${apiKeys}
    SET requests_total = ${apiKeys.requestsTotal} + v.n,
        last_used_at = GREATEST(${apiKeys.lastUsedAt}, v.t)
    FROM unnest(${sql.placeholder('ids')}::uuid[], ${sql.placeholder('counts')}::bigint[],
                ${sql.placeholder('times')}::timestamptz[]) AS v(id, n, t)
    WHERE ${apiKeys.id} = v.id`);

async function write(db: Database, rows: [string, Use][]): Promise<void> {
  await runStatement(
    db,
    boundStatement(WRITE, {
      ids: rows.map(([id]) => id),
      counts: rows.map(([, use]) => use.count),
      times: rows.map(([, use]) => use.lastUsed.toISOString()),
    }),
  );
}

/**
 * Writes what is pending, one UPDATE at a time; uses arriving meanwhile join the next one. A
 * failed UPDATE puts its uses back for the next drain (started by the next use or flush).
 */
async function drain(db: Database, batch: Batch): Promise<void> {
  try {
    while (batch.pending.size > 0) {
      const rows = [...batch.pending];
      batch.pending = new Map();
      try {
        await write(db, rows);
      } catch (error) {
        for (const [keyId, use] of rows) addUse(batch.pending, keyId, use.count, use.lastUsed);
        throw error;
      }
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
  addUse(batch.pending, keyId, 1, at);
  if (batch.writing) return null;
  batch.writing = drain(db, batch);
  return batch.writing;
}

/**
 * Waits until every use recorded so far is written (before usage figures are read). When a
 * write fails it stops there: the uses stay pending, and the read that follows meets the same
 * database.
 */
export async function flushUsage(view: Database): Promise<void> {
  const db = rootDatabase(view);
  const batch = batches.get(db);
  if (!batch) return;
  while (batch.writing || batch.pending.size > 0) {
    batch.writing ??= drain(db, batch);
    if (
      !(await batch.writing.then(
        () => true,
        () => false,
      ))
    )
      return;
  }
}
