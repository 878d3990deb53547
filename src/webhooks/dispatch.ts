import { and, asc, eq, inArray, isNull, lte, notInArray, or, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client';
import { alias } from 'drizzle-orm/pg-core';
import { signals, sources, webhookDeliveries, webhookEventMarks, webhooks } from '../db/schema';
import type { Deps } from '../deps';
import { signalColumns, signalConditions, type SignalRow } from '../signals/query';
import { settledBound } from '../signals/settled';
import type { Layer, Valence } from '../vocab';
import { decryptSecret } from './crypto';
import { sendDelivery, type AttemptResult } from './deliver';
import type { DispatchSummary } from './schemas';
import { deliveryBody } from './payload';
import type { WebhookRow } from './service';

const BATCH_SIZE = 100;
const DELIVERIES_PER_RUN = 10;
/** Failing this long (consecutive failures only) pauses a webhook. */
export const PAUSE_AFTER_MS = 3 * 24 * 60 * 60 * 1000;
const MINUTE = 60_000;
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** Retry delay after the n-th consecutive failure: 5, 10, 20, 40 … minutes, capped at 6 hours. */
export function backoffMs(failures: number): number {
  return Math.min(5 * 2 ** Math.max(failures - 1, 0), 360) * MINUTE;
}

export interface DispatchOptions {
  /** Webhooks delivered to at once; Workers allow 6 open outbound connections per invocation. */
  concurrency?: number;
  /** Stop claiming new webhooks after this long, so a run fits its 5-minute slot. */
  budgetMs?: number;
  /** At most this many webhooks per run (Workers cap subrequests per invocation). */
  maxWebhooks?: number;
  timeoutMs?: number;
  /** Extra margin under the oldest open transaction before a signal is read (clock skew). */
  settleMs?: number;
}

type DispatchDeps = Pick<Deps, 'db' | 'config' | 'now' | 'fetch' | 'log'>;

/**
 * One dispatcher pass: claims due webhooks with a lease (so overlapping runs never send the
 * same batch), sends each up to 10 batches of up to 100 matching signals, and moves each
 * cursor only past what a receiver acknowledged with a 2xx. Used by the webhook Worker's cron,
 * the Node server's timer and the admin endpoint.
 */
export async function dispatchWebhooks(
  deps: DispatchDeps,
  options: DispatchOptions = {},
): Promise<DispatchSummary> {
  const concurrency = options.concurrency ?? 6;
  const budgetMs = options.budgetMs ?? 4 * MINUTE;
  const maxWebhooks = options.maxWebhooks ?? 1_000;
  const started = Date.now();
  const summary: DispatchSummary = {
    webhooks: 0,
    deliveries: 0,
    succeeded: 0,
    failed: 0,
    signals: 0,
    paused: 0,
  };
  const seen: string[] = [];
  // Each lane claims its next webhook only when it is free, so one slow receiver holds one
  // lane, not a whole round of them.
  // A lane takes its slot before it claims, or lanes claiming together overshoot maxWebhooks.
  let slots = maxWebhooks;
  const lane = async () => {
    while (Date.now() - started < budgetMs && slots > 0) {
      slots -= 1;
      const [webhook] = await claimDue(deps.db, deps.now(), 1, seen);
      if (!webhook) return;
      seen.push(webhook.id);
      try {
        await deliverWebhook(deps, webhook, options, summary);
      } catch (error) {
        deps.log.error('webhook dispatch failed', { webhook_id: webhook.id, error: String(error) });
      } finally {
        await releaseLease(deps.db, webhook, deps.now()).catch((error: unknown) =>
          deps.log.warn('webhook lease release failed', { webhook_id: webhook.id, error: String(error) }),
        );
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  summary.webhooks = seen.length;
  return summary;
}

/** Long enough for 10 deliveries that each time out, so a live run never loses its claim. */
const LEASE_MS = 5 * MINUTE;

/** Leases up to `limit` due, active webhooks of active keys; rows another run holds are skipped, not waited for. */
async function claimDue(db: Database, now: Date, limit: number, exclude: string[]): Promise<WebhookRow[]> {
  const due = db
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(
      and(
        // Written as the partial index's own predicate, so the planner can use it.
        sql`${webhooks.active}`,
        lte(webhooks.nextAttemptAt, now),
        or(isNull(webhooks.leaseUntil), lte(webhooks.leaseUntil, now)),
        // A revoked key's webhooks are deleted with the revocation; this holds even for one
        // revoked another way (by hand in the database, or before that rule existed).
        sql`exists (select 1 from api_keys k where k.id = ${webhooks.keyId} and k.revoked_at is null)`,
        exclude.length ? notInArray(webhooks.id, exclude) : undefined,
      ),
    )
    .orderBy(asc(webhooks.nextAttemptAt))
    .limit(limit)
    .for('update', { skipLocked: true });
  return db
    .update(webhooks)
    .set({ leaseUntil: new Date(now.getTime() + LEASE_MS) })
    .where(inArray(webhooks.id, due))
    .returning();
}

/** How long the delivery log keeps attempts. */
export const DELIVERY_LOG_DAYS = 30;

/**
 * Gives the claim back, unless another run has taken it over since (its lease differs), and
 * trims this webhook's delivery log in the same round trip (an index range, never a scan).
 */
async function releaseLease(db: Database, webhook: WebhookRow, now: Date): Promise<void> {
  const logCutoff = new Date(now.getTime() - DELIVERY_LOG_DAYS * 24 * 60 * MINUTE);
  await db.execute(sql`
    with pruned as (
      delete from ${webhookDeliveries}
      where ${webhookDeliveries.webhookId} = ${webhook.id}
        and ${webhookDeliveries.attemptedAt} < ${logCutoff.toISOString()}::timestamptz
    ), pruned_marks as (
      delete from ${webhookEventMarks}
      where ${webhookEventMarks.webhookId} = ${webhook.id}
        and ${webhookEventMarks.deliveredAt} < ${logCutoff.toISOString()}::timestamptz
    )
    update ${webhooks} set lease_until = null
    where ${webhooks.id} = ${webhook.id}
      and ${webhooks.leaseUntil} = ${webhook.leaseUntil!.toISOString()}::timestamptz`);
}

type WebhookFilters = Pick<WebhookRow, 'layers' | 'minScore' | 'valence' | 'countryCodes'> & {
  distinctEvents?: boolean;
};

/** A webhook's countries as a condition on `table`: a signal matches when it shares any. */
const sharesCountry = (webhook: WebhookFilters, table: typeof signals) =>
  webhook.countryCodes?.length
    ? sql`${table.countryCodes} && ARRAY[${sql.join(
        webhook.countryCodes.map((code) => sql`${code}`),
        sql`, `,
      )}]::text[]`
    : undefined;

/**
 * What of the signals table a webhook's filters select; countries match when any is shared.
 * For `distinct_events` webhooks `min_score` is the event's severity (its strongest live
 * signal's score), so an echo that lifts its event to the threshold matches.
 */
function webhookConditions(webhook: WebhookFilters): SQL | undefined {
  const distinct = webhook.distinctEvents === true;
  return and(
    signalConditions({
      layers: (webhook.layers as Layer[] | null) ?? undefined,
      minScore: distinct ? undefined : (webhook.minScore ?? undefined),
      valence: (webhook.valence as Valence | null) ?? undefined,
    }),
    sharesCountry(webhook, signals),
    distinct && webhook.minScore
      ? sql`(SELECT max(e.significance_score) FROM ${signals} AS ${sql.identifier('e')}
             WHERE e.event_id = ${signals.eventId} AND e.retracted_at IS NULL) >= ${webhook.minScore}`
      : undefined,
  );
}

/** Another reference to `signals`: the other members of a candidate's event. */
const member = alias(signals, 'member');

/**
 * `distinct_events`: a candidate is its event's first for this webhook. No signal of its event
 * was delivered by this webhook before (`webhook_event_marks`; signals move with merges, so a
 * mark on a merged-away event's signal still counts), and no earlier signal of its event after
 * the cursor matches too (that one is the first; this is an echo). Each is a probe of the
 * event's members by `signals_event_idx`.
 */
function firstOfEvent(webhook: WebhookRow, cursor: SQL): SQL {
  const others = and(
    signalConditions(
      {
        layers: (webhook.layers as Layer[] | null) ?? undefined,
        valence: (webhook.valence as Valence | null) ?? undefined,
      },
      undefined,
      member as unknown as typeof signals,
    ),
    sharesCountry(webhook, member as unknown as typeof signals),
  );
  return sql`NOT EXISTS (SELECT 1 FROM ${signals} AS ${sql.identifier('member')}
      JOIN ${webhookEventMarks} ON ${webhookEventMarks.signalId} = ${member.id} AND ${webhookEventMarks.webhookId} = ${webhook.id}
      WHERE ${member.eventId} = ${signals.eventId})
    AND NOT EXISTS (SELECT 1 FROM ${signals} AS ${sql.identifier('member')}
      WHERE ${member.eventId} = ${signals.eventId}
        AND (${member.ingestedAt}, ${member.id}) < (${signals.ingestedAt}, ${signals.id})
        AND ${cursor} ${others ? sql`AND ${others}` : sql``})`;
}

/**
 * The next batch: signals after the cursor that match, in ingest order, in one query. A retry
 * reads exactly the pending range again. New batches read only below `settledBound` (minus a
 * margin), so a row that commits late can never appear behind a cursor that has moved past it.
 */
async function nextBatch(db: Database, webhook: WebhookRow, settleMs: number): Promise<SignalRow[]> {
  const after = (table: typeof signals) =>
    sql`(${table.ingestedAt}, ${table.id}) > (select w.cursor_ingested_at, coalesce(w.cursor_signal_id, ${NIL_UUID}::uuid) from webhooks w where w.id = ${webhook.id})`;
  const settled = settledBound(settleMs);
  // A distinct_events webhook judges each settled signal once (see passSettled), so its batch
  // and its cursor move must read below one and the same bound: fixed here, to the microsecond.
  const fixed =
    webhook.distinctEvents && !webhook.pendingDeliveryId
      ? (await queryRows<{ at: string }>(db, sql`SELECT to_json(${settled}) #>> '{}' AS at`))[0]!.at
      : null;
  const bound = webhook.pendingDeliveryId
    ? sql`(${signals.ingestedAt}, ${signals.id}) <= (select w.pending_until_ingested_at, w.pending_until_signal_id from webhooks w where w.id = ${webhook.id})`
    : fixed
      ? sql`${signals.ingestedAt} < ${fixed}::timestamptz`
      : sql`${signals.ingestedAt} < ${settled}`;
  const batch = await db
    .select(signalColumns)
    .from(signals)
    .innerJoin(sources, eq(sources.id, signals.sourceId))
    .where(
      and(
        after(signals),
        bound,
        webhookConditions(webhook),
        webhook.distinctEvents
          ? firstOfEvent(webhook, after(member as unknown as typeof signals))
          : undefined,
      ),
    )
    .orderBy(asc(signals.ingestedAt), asc(signals.id))
    .limit(BATCH_SIZE);
  if (fixed && batch.length === 0) await passSettled(db, webhook.id, fixed);
  return batch;
}

/**
 * Moves a distinct_events webhook's cursor over every settled signal when none of them is to be
 * delivered: each signal is judged once, at the first run after it settles. So an event below
 * `min_score` is passed, and the echo that later lifts it there is the one delivered, not the
 * event's first report over again. (Plain webhooks keep their cursor on the last delivery.)
 */
async function passSettled(db: Database, webhookId: string, bound: string): Promise<void> {
  await db.execute(sql`
    UPDATE ${webhooks} SET cursor_ingested_at = x.ingested_at, cursor_signal_id = x.id
    FROM (SELECT s.ingested_at, s.id FROM ${signals} s WHERE s.ingested_at < ${bound}::timestamptz
          ORDER BY s.ingested_at DESC, s.id DESC LIMIT 1) x
    WHERE ${webhooks.id} = ${webhookId}
      AND (x.ingested_at, x.id) > (${webhooks.cursorIngestedAt}, coalesce(${webhooks.cursorSignalId}, ${NIL_UUID}::uuid))`);
}

async function deliverWebhook(
  deps: DispatchDeps,
  claimed: WebhookRow,
  options: DispatchOptions,
  summary: DispatchSummary,
): Promise<void> {
  const { db } = deps;
  let secret: string | null;
  try {
    secret = claimed.secretCiphertext
      ? await decryptSecret(claimed.secretCiphertext, deps.config.WEBHOOK_ENCRYPTION_KEY, claimed.id)
      : null;
  } catch (error) {
    // Never send unsigned what the owner asked to have signed; fail (and in time pause) visibly,
    // in the delivery log too, so the owner sees why nothing arrives.
    deps.log.error('webhook secret unreadable', { webhook_id: claimed.id, error: String(error) });
    const result: AttemptResult = { ok: false, status: null, durationMs: 0, error: 'secret_unavailable' };
    const at = deps.now();
    await recordAttempt(
      db,
      claimed.id,
      claimed.pendingDeliveryId ?? crypto.randomUUID(),
      0,
      result,
      false,
      at,
    );
    summary.failed += 1;
    if (await scheduleRetryOrPause(db, claimed, result, at)) summary.paused += 1;
    return;
  }
  let webhook = claimed;
  for (let round = 0; round < DELIVERIES_PER_RUN; round++) {
    const batch = await nextBatch(db, webhook, options.settleMs ?? 1_000);
    if (batch.length === 0) {
      // A pending range can only come back empty if its signals were deleted: start afresh.
      if (webhook.pendingDeliveryId) await clearPending(db, webhook.id);
      return;
    }
    const last = batch[batch.length - 1]!;
    const deliveryId = webhook.pendingDeliveryId ?? crypto.randomUUID();
    if (!webhook.pendingDeliveryId) {
      // Recorded before sending, so a crash mid-send retries the same batch under the same id.
      webhook = await setPending(db, webhook.id, deliveryId, last.id);
    }
    const firedAt = deps.now();
    const result = await sendDelivery(
      { url: webhook.url, deliveryId, body: deliveryBody(webhook.id, firedAt, batch), secret },
      {
        fetch: deps.fetch,
        allowInsecure: deps.config.WEBHOOK_ALLOW_INSECURE,
        allowedPorts: deps.config.WEBHOOK_ALLOWED_PORTS,
        timeoutMs: options.timeoutMs,
        timestamp: Math.floor(firedAt.getTime() / 1000),
      },
    );
    summary.deliveries += 1;
    await recordAttempt(db, webhook.id, deliveryId, batch.length, result, false, firedAt);
    if (!result.ok) {
      summary.failed += 1;
      if (await scheduleRetryOrPause(db, webhook, result, deps.now())) summary.paused += 1;
      return;
    }
    summary.succeeded += 1;
    summary.signals += batch.length;
    // Marked before the cursor moves: a crash in between can only hold an echo back, never resend it.
    if (webhook.distinctEvents) await markEvents(db, webhook.id, batch, firedAt);
    webhook = await acknowledgeDelivery(db, webhook.id, last.id, result, deps.now());
    // A distinct_events webhook reads once more, so the settled signals it passed over are judged now.
    if (batch.length < BATCH_SIZE && !webhook.distinctEvents) return;
  }
}

/** Notes the events of a delivered `distinct_events` batch, so their echoes are not sent. */
async function markEvents(db: Database, webhookId: string, batch: SignalRow[], at: Date): Promise<void> {
  await db
    .insert(webhookEventMarks)
    .values(batch.map((row) => ({ webhookId, signalId: row.id, deliveredAt: at })))
    .onConflictDoNothing();
}

async function setPending(
  db: Database,
  id: string,
  deliveryId: string,
  lastSignalId: string,
): Promise<WebhookRow> {
  const [row] = await db
    .update(webhooks)
    .set({
      pendingDeliveryId: deliveryId,
      // Taken from the row itself: a JS Date would drop the microseconds of the timestamp.
      pendingUntilIngestedAt: sql`(select s.ingested_at from signals s where s.id = ${lastSignalId})`,
      pendingUntilSignalId: lastSignalId,
    })
    .where(eq(webhooks.id, id))
    .returning();
  return row!;
}

async function clearPending(db: Database, id: string): Promise<void> {
  await db
    .update(webhooks)
    .set({ pendingDeliveryId: null, pendingUntilIngestedAt: null, pendingUntilSignalId: null })
    .where(eq(webhooks.id, id));
}

async function recordAttempt(
  db: Database,
  webhookId: string,
  deliveryId: string,
  signalCount: number,
  result: AttemptResult,
  isTest: boolean,
  at: Date,
): Promise<void> {
  await db.insert(webhookDeliveries).values({
    webhookId,
    deliveryId,
    attemptedAt: at,
    signalCount,
    status: result.status,
    durationMs: result.durationMs,
    error: result.error,
    ok: result.ok,
    isTest,
  });
}

/** Moves the cursor past the delivered batch and clears the failure state. */
async function acknowledgeDelivery(
  db: Database,
  id: string,
  lastSignalId: string,
  result: AttemptResult,
  now: Date,
): Promise<WebhookRow> {
  const [row] = await db
    .update(webhooks)
    .set({
      cursorIngestedAt: sql`(select s.ingested_at from signals s where s.id = ${lastSignalId})`,
      cursorSignalId: lastSignalId,
      pendingDeliveryId: null,
      pendingUntilIngestedAt: null,
      pendingUntilSignalId: null,
      consecutiveFailures: 0,
      failingSince: null,
      lastDeliveryAt: now,
      lastStatus: result.status,
      nextAttemptAt: now,
    })
    .where(eq(webhooks.id, id))
    .returning();
  return row!;
}

/** Schedules the retry by the backoff table; pauses after 3 days of failures. True if paused. */
async function scheduleRetryOrPause(
  db: Database,
  webhook: WebhookRow,
  result: AttemptResult,
  now: Date,
): Promise<boolean> {
  const failures = webhook.consecutiveFailures + 1;
  const failingSince = webhook.failingSince ?? now;
  const pause = now.getTime() - failingSince.getTime() >= PAUSE_AFTER_MS;
  await db
    .update(webhooks)
    .set({
      consecutiveFailures: failures,
      failingSince,
      lastStatus: result.status,
      nextAttemptAt: new Date(now.getTime() + backoffMs(failures)),
      ...(pause
        ? {
            active: false,
            disabledReason: `paused after failing since ${failingSince.toISOString()} (${failures} attempts); last error: ${result.error}`,
          }
        : {}),
    })
    .where(eq(webhooks.id, webhook.id));
  return pause;
}

/** A signed sample delivery sent now; recorded as a test, it never touches cursor or failures. */
export async function sendTestDelivery(
  deps: DispatchDeps,
  webhook: WebhookRow,
  options: { timeoutMs?: number } = {},
): Promise<AttemptResult & { deliveryId: string }> {
  const secret = webhook.secretCiphertext
    ? await decryptSecret(webhook.secretCiphertext, deps.config.WEBHOOK_ENCRYPTION_KEY, webhook.id)
    : null;
  const now = deps.now();
  const deliveryId = crypto.randomUUID();
  const body = deliveryBody(webhook.id, now, [sampleSignal(now)]);
  const result = await sendDelivery(
    { url: webhook.url, deliveryId, body, secret },
    {
      fetch: deps.fetch,
      allowInsecure: deps.config.WEBHOOK_ALLOW_INSECURE,
      allowedPorts: deps.config.WEBHOOK_ALLOWED_PORTS,
      timeoutMs: options.timeoutMs,
      timestamp: Math.floor(now.getTime() / 1000),
    },
  );
  await recordAttempt(deps.db, webhook.id, deliveryId, 1, result, true, now);
  return { ...result, deliveryId };
}

function sampleSignal(now: Date): SignalRow {
  return {
    id: NIL_UUID,
    threatLayer: 'cyber',
    significanceScore: 7.5,
    signalValence: 'update',
    title: 'Test delivery',
    contentDisplay: 'This is a test delivery from Signal Intelligence API; it is not a real signal.',
    countryCodes: ['US'],
    region: null,
    city: null,
    lat: null,
    lng: null,
    language: 'en',
    publishedAt: now,
    collectedAt: now,
    ingestedAt: now,
    isAnomaly: false,
    sourceUrl: 'https://example.com/signal-intel/test-delivery',
    updatedAt: now,
    retractedAt: null,
    eventId: NIL_UUID,
    corroboration: 1,
    sourceId: NIL_UUID,
    sourceName: 'Test',
    sourceTier: 'core',
  };
}
