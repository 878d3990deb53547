import { and, asc, eq, isNotNull, isNull, lte, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { sources } from '../db/schema';
import { seedCatalogue, type SourceRow } from './rows';

const MINUTE = 60_000;
/** Longest wait after failures, unless the source's own interval is longer (KEV: daily). */
export const MAX_BACKOFF_MS = 6 * 60 * MINUTE;
/** How long a claimed source is held against another run polling it too (fetch + ingest). */
const CLAIM_MS = 2 * MINUTE;

/**
 * The wait before the next poll after `failures` consecutive failures: the interval doubled per
 * failure (10, 20, 40 … minutes for a 5-minute feed), capped at 6 hours, and never shorter
 * than the interval itself nor than what the server asked for with `Retry-After`.
 */
export function pollBackoffMs(intervalMinutes: number, failures: number, retryAfterMs = 0): number {
  const interval = intervalMinutes * MINUTE;
  const doubled = interval * 2 ** Math.max(failures, 0);
  return Math.max(Math.min(doubled, Math.max(MAX_BACKOFF_MS, interval)), interval, retryAfterMs);
}

/** Enabled connector sources whose next poll is due, the longest-waiting (or never polled) first. */
export async function dueSources(db: Database, now: Date, limit = 100): Promise<SourceRow[]> {
  return db
    .select()
    .from(sources)
    .where(
      and(
        isNotNull(sources.connector),
        eq(sources.enabled, true),
        or(isNull(sources.nextPollAt), lte(sources.nextPollAt, now)),
      ),
    )
    .orderBy(sql`${sources.nextPollAt} asc nulls first`, asc(sources.name))
    .limit(limit);
}

/**
 * Claims a source for one poll by moving its `next_poll_at` past the claim window, only if it is
 * still due (or unconditionally with `force`). Answers false when another run got there first,
 * so two overlapping runs (the cron and a CLI poll) never fetch the same feed twice.
 */
export async function claimSource(
  db: Database,
  source: Pick<SourceRow, 'id'>,
  now: Date,
  force = false,
): Promise<boolean> {
  const rows = await db
    .update(sources)
    .set({ nextPollAt: new Date(now.getTime() + CLAIM_MS) })
    .where(
      and(
        eq(sources.id, source.id),
        force ? undefined : or(isNull(sources.nextPollAt), lte(sources.nextPollAt, now)),
      ),
    )
    .returning({ id: sources.id });
  return rows.length === 1;
}

/** Validators of a 200, or null on a 304 (the stored ones stay). */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

/** A poll that got the document (200) or learned it had not changed (304). */
export async function recordSuccess(
  db: Database,
  source: Pick<SourceRow, 'id'>,
  outcome: { now: Date; intervalMinutes: number; items: number; validators: Validators | null },
): Promise<void> {
  const { now, intervalMinutes, items, validators } = outcome;
  await db
    .update(sources)
    .set({
      lastPolledAt: now,
      lastSuccessAt: now,
      lastError: null,
      consecutiveFailures: 0,
      lastPollItems: items,
      nextPollAt: new Date(now.getTime() + intervalMinutes * MINUTE),
      ...(validators ? { etag: validators.etag, lastModified: validators.lastModified } : {}),
    })
    .where(eq(sources.id, source.id));
}

/**
 * A failed poll: the classified kind (never upstream's or the parser's raw text), one more
 * consecutive failure, and the next poll pushed back. Validators are kept.
 */
export async function recordFailure(
  db: Database,
  source: Pick<SourceRow, 'id' | 'consecutiveFailures'>,
  outcome: { now: Date; intervalMinutes: number; error: string; retryAfterMs?: number },
): Promise<{ failures: number; nextPollAt: Date }> {
  const failures = source.consecutiveFailures + 1;
  const nextPollAt = new Date(
    outcome.now.getTime() + pollBackoffMs(outcome.intervalMinutes, failures, outcome.retryAfterMs),
  );
  await db
    .update(sources)
    .set({
      lastPolledAt: outcome.now,
      lastError: outcome.error,
      consecutiveFailures: failures,
      lastPollItems: 0,
      nextPollAt,
    })
    .where(eq(sources.id, source.id));
  return { failures, nextPollAt };
}

/**
 * Adds the built-in catalogue when the database has no connector source yet (a fresh
 * deployment), so it polls real feeds with nothing else set up. Once any exists the operator's
 * list is left alone: a catalogue source the operator deleted is not brought back (disable it
 * to keep it off; `sources add` adds one). Answers how many sources were added.
 */
export async function ensureCatalogue(db: Database): Promise<number> {
  const [any] = await db
    .select({ id: sources.id })
    .from(sources)
    .where(isNotNull(sources.connector))
    .limit(1);
  return any ? 0 : seedCatalogue(db);
}
