import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Database } from '../db/client';
import { accounts, apiKeys, webhookDeliveries, webhooks } from '../db/schema';
import type { Layer, Valence } from '../vocab';
import { encryptSecret } from './crypto';
import { WEBHOOK_LIMIT, type CreateWebhook, type UpdateWebhook, type WebhookJson } from './schemas';

export type WebhookRow = typeof webhooks.$inferSelect;

/** The public record of a webhook; the secret never leaves the database. */
export function webhookJson(row: WebhookRow): WebhookJson {
  return {
    id: row.id,
    url: row.url,
    name: row.name,
    layers: (row.layers as Layer[] | null) ?? null,
    min_score: row.minScore,
    country_codes: row.countryCodes,
    valence: (row.valence as Valence | null) ?? null,
    active: row.active,
    distinct_events: row.distinctEvents,
    has_secret: row.secretCiphertext !== null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    last_delivery_at: row.lastDeliveryAt?.toISOString() ?? null,
    last_status: row.lastStatus,
    consecutive_failures: row.consecutiveFailures,
    disabled_reason: row.disabledReason,
  };
}

/** The key's webhooks, oldest first. */
export function listWebhooks(db: Database, keyId: string): Promise<WebhookRow[]> {
  return db.select().from(webhooks).where(eq(webhooks.keyId, keyId)).orderBy(asc(webhooks.createdAt));
}

/** One webhook of the key, or null (also when it belongs to another key). */
export async function findWebhook(db: Database, keyId: string, id: string): Promise<WebhookRow | null> {
  const [row] = await db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.keyId, keyId)));
  return row ?? null;
}

/**
 * Thrown by `createWebhook` when the account already holds `WEBHOOK_LIMIT` webhooks per active
 * key across all its keys (revoked keys' webhooks are deleted at revocation, so this only binds
 * on rows a revocation could not clean up, e.g. keys revoked before that rule existed).
 */
export class AccountWebhookLimit extends Error {
  constructor(
    readonly limit: number,
    readonly held: number,
  ) {
    super(`account webhook limit ${limit} reached (${held} held)`);
    this.name = 'AccountWebhookLimit';
  }
}

/** Thrown by `createWebhook` when the key was revoked while the request was on its way. */
export class KeyRevoked extends Error {
  constructor() {
    super('the key is revoked');
    this.name = 'KeyRevoked';
  }
}

/**
 * Registers a webhook; null when the key already has the maximum. The account's and the key's
 * rows are locked for the counts and insert, so concurrent creates cannot pass a limit together,
 * and a revocation (which updates the key's row) either commits first and is seen here, or waits.
 * Beyond 5 per key, the account as a whole may hold at most 5 per active key.
 */
export async function createWebhook(
  db: Database,
  keyId: string,
  input: CreateWebhook,
  encryptionKey: string | undefined,
): Promise<WebhookRow | null> {
  // The id is chosen here because the secret is sealed to it (associated data).
  const id = crypto.randomUUID();
  const secretCiphertext = input.secret ? await encryptSecret(input.secret, encryptionKey, id) : null;
  return db.transaction(async (tx) => {
    const [owner] = await tx
      .select({ accountId: apiKeys.accountId })
      .from(apiKeys)
      .where(eq(apiKeys.id, keyId));
    if (!owner) throw new KeyRevoked();
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, owner.accountId)).for('update');
    const [key] = await tx
      .select({ revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(eq(apiKeys.id, keyId))
      .for('update');
    if (!key || key.revokedAt) throw new KeyRevoked();
    const [count] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(webhooks)
      .where(eq(webhooks.keyId, keyId));
    if ((count?.n ?? 0) >= WEBHOOK_LIMIT) return null;
    const [account] = await tx
      .select({
        held: sql<number>`count(${webhooks.id})::int`,
        activeKeys: sql<number>`(count(distinct ${apiKeys.id}) filter (where ${apiKeys.revokedAt} is null))::int`,
      })
      .from(apiKeys)
      .leftJoin(webhooks, eq(webhooks.keyId, apiKeys.id))
      .where(eq(apiKeys.accountId, owner.accountId));
    const accountLimit = WEBHOOK_LIMIT * (account?.activeKeys ?? 0);
    if ((account?.held ?? 0) >= accountLimit) throw new AccountWebhookLimit(accountLimit, account?.held ?? 0);
    const [row] = await tx
      .insert(webhooks)
      .values({
        id,
        keyId,
        url: input.url,
        name: input.name ?? null,
        secretCiphertext,
        layers: input.layers ?? null,
        minScore: input.min_score ?? null,
        countryCodes: input.country_codes ?? null,
        valence: input.valence ?? null,
        distinctEvents: input.distinct_events ?? false,
      })
      .returning();
    return row!;
  });
}

/**
 * Deletes every webhook (and, by cascade, its delivery log) of the account's revoked keys: run
 * in the revocation's transaction, so a revoked key's webhooks stop with it and no webhook is
 * left that nobody can manage. Also sweeps up any left from before this rule.
 */
export async function deleteRevokedKeysWebhooks(
  db: Pick<Database, 'delete'>,
  accountId: string,
): Promise<number> {
  const rows = await db
    .delete(webhooks)
    .where(
      sql`${webhooks.keyId} in (select k.id from api_keys k where k.account_id = ${accountId} and k.revoked_at is not null)`,
    )
    .returning({ id: webhooks.id });
  return rows.length;
}

/**
 * Applies an update. Changing the URL or a filter drops a pending (failing) batch, so the next
 * delivery is built for the new settings under a new delivery id. Resuming clears the failure
 * state so a paused webhook starts afresh, from where its cursor stopped.
 */
export async function updateWebhook(
  db: Database,
  keyId: string,
  id: string,
  input: UpdateWebhook,
  now: Date,
): Promise<WebhookRow | null> {
  const set: Partial<typeof webhooks.$inferInsert> = { updatedAt: now };
  if (input.url !== undefined) set.url = input.url;
  if (input.name !== undefined) set.name = input.name;
  if (input.layers !== undefined) set.layers = input.layers;
  if (input.min_score !== undefined) set.minScore = input.min_score;
  if (input.country_codes !== undefined) set.countryCodes = input.country_codes;
  if (input.valence !== undefined) set.valence = input.valence;
  if (input.distinct_events !== undefined) set.distinctEvents = input.distinct_events;
  const reshaped = ['url', 'layers', 'min_score', 'country_codes', 'valence', 'distinct_events'].some(
    (field) => field in input,
  );
  if (reshaped)
    Object.assign(set, { pendingDeliveryId: null, pendingUntilIngestedAt: null, pendingUntilSignalId: null });
  if (input.active !== undefined) {
    set.active = input.active;
    if (input.active) {
      // Only a real resume clears the failure state; `active: true` on a running webhook must
      // not skip its backoff or postpone its pause.
      const resumed = <T>(fresh: T, column: AnyPgColumn) =>
        sql`case when ${webhooks.active} then ${column} else ${fresh} end`;
      Object.assign(set, {
        consecutiveFailures: resumed(0, webhooks.consecutiveFailures),
        failingSince: resumed(null, webhooks.failingSince),
        disabledReason: resumed(null, webhooks.disabledReason),
        nextAttemptAt: resumed(now, webhooks.nextAttemptAt),
      });
    }
  }
  const [row] = await db
    .update(webhooks)
    .set(set)
    .where(and(eq(webhooks.id, id), eq(webhooks.keyId, keyId)))
    .returning();
  return row ?? null;
}

/** Deletes a webhook of the key (its delivery log goes with it); false when not found. */
export async function deleteWebhook(db: Database, keyId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.keyId, keyId)))
    .returning({ id: webhooks.id });
  return rows.length > 0;
}

/** The most recent delivery attempts of a webhook, newest first. */
export async function recentDeliveries(db: Database, webhookId: string, limit = 50) {
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhookId))
    .orderBy(desc(webhookDeliveries.attemptedAt))
    .limit(limit);
  return rows.map((row) => ({
    attempted_at: row.attemptedAt.toISOString(),
    delivery_id: row.deliveryId,
    signal_count: row.signalCount,
    status: row.status,
    ok: row.ok,
    duration_ms: row.durationMs,
    error: row.error,
    test: row.isTest,
  }));
}
