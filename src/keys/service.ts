import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { accounts, apiKeys } from '../db/schema';
import type { KeyTier } from '../vocab';
import { generateKey, hashKey, keyPrefix } from './key';

export interface KeyRecord {
  keyId: string;
  accountId: string;
  prefix: string;
  tier: KeyTier;
  revoked: boolean;
}

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
export async function issueKey(
  db: Pick<Database, 'insert'>,
  accountId: string,
  tier: KeyTier,
  name: string | null,
): Promise<IssuedKey> {
  const key = generateKey();
  const [row] = await db
    .insert(apiKeys)
    .values({ accountId, keyHash: await hashKey(key), prefix: keyPrefix(key), name })
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

/** Sets an account's tier; false when no account has that email. */
export async function setAccountTier(db: Database, email: string, tier: KeyTier): Promise<boolean> {
  const rows = await db
    .update(accounts)
    .set({ tier })
    .where(eq(accounts.email, normalizeEmail(email)))
    .returning({ id: accounts.id });
  return rows.length > 0;
}

/** Counts the account's keys that are not revoked. */
export async function activeKeyCount(db: Pick<Database, 'select'>, accountId: string) {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)));
  return row?.n ?? 0;
}
