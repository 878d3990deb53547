import type { KeyRecord } from './record';

/**
 * In-process cache of active key records by key hash, so a hot authenticated request does not
 * spend a database round trip on the key. Safe to share across requests and accounts at module
 * level: entries are keyed by the SHA-256 of a random 44-character key and hold no secret.
 * It never decides alone that a key is still valid: every cached hit is checked against the
 * store's revocation flag in the same round trip as its rate limit (see http/auth.ts).
 */
const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

/** How long a revocation flag stays in the store: far longer than any cache entry lives. */
export const REVOKED_FLAG_TTL_SECONDS = 24 * 3600;

/** The store key that marks `keyId` as revoked. */
export const revokedFlag = (keyId: string) => `revoked:${keyId}`;

const entries = new Map<string, { record: KeyRecord; expires: number }>();

/** The cached active record for `keyHash`, or null when absent or expired. */
export function cachedKey(keyHash: string, now = Date.now()): KeyRecord | null {
  const entry = entries.get(keyHash);
  if (!entry) return null;
  if (entry.expires > now) return entry.record;
  entries.delete(keyHash);
  return null;
}

/** Caches an active key record; the oldest entry makes room when the cache is full. */
export function rememberKey(keyHash: string, record: KeyRecord, now = Date.now()): void {
  entries.delete(keyHash);
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  entries.set(keyHash, { record, expires: now + TTL_MS });
}

/** Drops the entries matching `test` (a revoked key, or every key of an account whose tier changed). */
export function forgetKeys(test: (record: KeyRecord) => boolean): void {
  for (const [hash, entry] of entries) if (test(entry.record)) entries.delete(hash);
}
