import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { STORE_TIMEOUT_MS, withDeadline } from '../store/deadline';
import type { Store } from '../store/types';
import { accounts, apiKeys } from '../db/schema';
import type { KeyTier } from '../vocab';
import { forgetKeys, REVOKED_FLAG_TTL_SECONDS, revokedFlag } from './cache';
import { generateKey, hashKey, keyPrefix } from './key';
import type { KeyRecord } from './record';
import { deleteRevokedKeysWebhooks } from '../webhooks/service';

/** Active keys an account may hold at once. */
export const MAX_ACTIVE_KEYS = 10;

/** The key and its account's tier by key hash, in one query; null when unknown. */
export async function findKeyByHash(db: Database, keyHash: string): Promise<KeyRecord | null> {
  const [row] = await db
    .select({
      keyId: apiKeys.id,
      accountId: apiKeys.accountId,
      prefix: apiKeys.prefix,
      tier: accounts.tier,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(eq(apiKeys.keyHash, keyHash))
    .limit(1);
  if (!row) return null;
  return {
    keyId: row.keyId,
    accountId: row.accountId,
    prefix: row.prefix,
    tier: row.tier as KeyTier,
    revoked: row.revokedAt !== null,
  };
}

export interface IssuedKey {
  id: string;
  key: string;
  prefix: string;
  name: string | null;
  tier: KeyTier;
  created_at: string;
}

/** Inserts a new key for `accountId`; the raw key is returned here and never again. */
async function issueKey(
  db: Pick<Database, 'insert'>,
  accountId: string,
  tier: KeyTier,
  name: string | null,
): Promise<IssuedKey> {
  const key = generateKey();
  const [row] = await db
    .insert(apiKeys)
    .values({ accountId, keyHash: hashKey(key), prefix: keyPrefix(key), name })
    .returning({ id: apiKeys.id, createdAt: apiKeys.createdAt });
  return {
    id: row!.id,
    key,
    prefix: keyPrefix(key),
    name,
    tier,
    created_at: row!.createdAt.toISOString(),
  };
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/**
 * Signup: a new free account and its first key. Returns null when the email already has an
 * account (nobody may add a key to someone else's account).
 */
export async function signUp(db: Database, email: string, name: string | null): Promise<IssuedKey | null> {
  return db.transaction(async (tx) => {
    const [account] = await tx
      .insert(accounts)
      .values({ email: normalizeEmail(email), tier: 'free' })
      .onConflictDoNothing({ target: accounts.email })
      .returning({ id: accounts.id });
    if (!account) return null;
    return issueKey(tx, account.id, 'free', name);
  });
}

/** Operator issue: a key of `tier` for `email`, creating the account or setting its tier. */
export async function issueKeyForEmail(
  db: Database,
  email: string,
  tier: KeyTier,
  name: string | null,
): Promise<IssuedKey> {
  return db.transaction(async (tx) => {
    const [account] = await tx
      .insert(accounts)
      .values({ email: normalizeEmail(email), tier })
      .onConflictDoUpdate({ target: accounts.email, set: { tier } })
      .returning({ id: accounts.id });
    return issueKey(tx, account!.id, tier, name);
  });
}

/**
 * Sets an account's tier; false when no account has that email. This process's key cache
 * drops the account's keys at once; other processes follow within the cache's 30 s.
 */
export async function setAccountTier(db: Database, email: string, tier: KeyTier): Promise<boolean> {
  const rows = await db
    .update(accounts)
    .set({ tier })
    .where(eq(accounts.email, normalizeEmail(email)))
    .returning({ id: accounts.id });
  for (const { id } of rows) forgetKeys((record) => record.accountId === id);
  return rows.length > 0;
}

/**
 * Keys an account may add in any rolling 24 hours (its first key, from signup or an operator,
 * not counted). With at most MAX_ACTIVE_KEYS active at once, this bounds what revoking and
 * re-creating keys can add to the account's hourly budget (docs/keys-and-limits.md).
 */
export const MAX_NEW_KEYS_PER_DAY = 10;

export type AccountKeyOutcome =
  | { issued: IssuedKey }
  | { refused: 'active_limit' }
  | { refused: 'daily_limit'; retryAfterSeconds: number }
  | { refused: 'no_account' };

/**
 * Another key on an existing account, with the account's tier. The account row is locked
 * while its keys are counted, so concurrent requests can never pass either maximum: at most
 * MAX_ACTIVE_KEYS active, and at most MAX_NEW_KEYS_PER_DAY added in the last 24 hours
 * (revoked ones included, so revoking does not give the allowance back).
 */
export async function issueAccountKey(
  db: Database,
  accountId: string,
  name: string | null,
): Promise<AccountKeyOutcome> {
  return db.transaction(async (tx): Promise<AccountKeyOutcome> => {
    const [account] = await tx
      .select({ tier: accounts.tier })
      .from(accounts)
      .where(eq(accounts.id, accountId))
      .for('update');
    if (!account) return { refused: 'no_account' };
    if ((await activeKeyCount(tx, accountId)) >= MAX_ACTIVE_KEYS) return { refused: 'active_limit' };
    const [recent] = await tx
      .select({
        n: sql<number>`count(*)::int`,
        retry: sql<number>`ceil(extract(epoch from min(${apiKeys.createdAt}) + interval '24 hours' - now()))::int`,
      })
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.accountId, accountId),
          sql`${apiKeys.createdAt} > now() - interval '24 hours'`,
          sql`${apiKeys.id} <> (select k.id from api_keys k where k.account_id = ${accountId} order by k.created_at, k.id limit 1)`,
        ),
      );
    if ((recent?.n ?? 0) >= MAX_NEW_KEYS_PER_DAY) {
      return { refused: 'daily_limit', retryAfterSeconds: Math.max(1, recent?.retry ?? 1) };
    }
    return { issued: await issueKey(tx, accountId, account.tier as KeyTier, name) };
  });
}

/** A key of an account as its owner sees it (never the hash, never the raw key). */
export interface AccountKey {
  id: string;
  prefix: string;
  name: string | null;
  tier: KeyTier;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  requestsTotal: number;
}

/** Every key of the account, revoked ones included, oldest first. */
export async function listAccountKeys(db: Database, accountId: string): Promise<AccountKey[]> {
  const rows = await db
    .select({
      id: apiKeys.id,
      prefix: apiKeys.prefix,
      name: apiKeys.name,
      tier: accounts.tier,
      createdAt: apiKeys.createdAt,
      lastUsedAt: apiKeys.lastUsedAt,
      revokedAt: apiKeys.revokedAt,
      requestsTotal: apiKeys.requestsTotal,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(eq(apiKeys.accountId, accountId))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
  return rows.map((row) => ({ ...row, tier: row.tier as KeyTier }));
}

/**
 * Revokes `keyId` if it belongs to `accountId` (already revoked stays as it was) and deletes
 * the webhooks of the account's revoked keys in the same transaction, so they stop at once;
 * false when the account has no such key. Drops the key from this process's cache.
 */
async function revokeAccountKey(db: Database, accountId: string, keyId: string): Promise<boolean> {
  const rows = await db.transaction(async (tx) => {
    const revoked = await tx
      .update(apiKeys)
      .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId)))
      .returning({ id: apiKeys.id });
    if (revoked.length > 0) await deleteRevokedKeysWebhooks(tx, accountId);
    return revoked;
  });
  forgetKeys((record) => record.keyId === keyId);
  return rows.length > 0;
}

/** Counts the account's keys that are not revoked. */
async function activeKeyCount(db: Pick<Database, 'select'>, accountId: string) {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)));
  return row?.n ?? 0;
}

/**
 * Revokes a key of the account in the database, then flags it in the store so every other
 * process refuses it on its next request. `flag_failed` means the database has the revocation
 * but the store did not take the flag: the caller should report failure so the client retries
 * (revoking again is harmless and writes the flag again).
 */
export async function revokeKey(
  deps: { db: Database; store: Store },
  accountId: string,
  keyId: string,
): Promise<'revoked' | 'not_found' | 'flag_failed'> {
  if (!(await revokeAccountKey(deps.db, accountId, keyId))) return 'not_found';
  try {
    await withDeadline(deps.store.set(revokedFlag(keyId), true, REVOKED_FLAG_TTL_SECONDS), STORE_TIMEOUT_MS);
    return 'revoked';
  } catch {
    return 'flag_failed';
  }
}
