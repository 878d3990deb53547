import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv, Caller } from '../deps';
import { cachedKey, forgetKeys, rememberKey, revokedFlag } from '../keys/cache';
import { hashKey, isWellFormedKey } from '../keys/key';
import { findKeyByHash } from '../keys/service';
import { recordUse } from '../keys/usage';
import { ApiError } from './problem';
import { admit, applyLimits, hitsFor } from './ratelimit';

export type AccessMode = 'key' | 'public';

/** The raw key from `X-Api-Key`, `Authorization: Bearer`, or (feeds only) `?api_key=`. */
function presentedKey(c: Context, allowQueryKey: boolean): string | null {
  const header = c.req.header('x-api-key');
  if (header) return header.trim();
  const authorization = c.req.header('authorization');
  const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
  if (bearer) return bearer[1]!;
  if (allowQueryKey) return c.req.query('api_key') ?? null;
  return null;
}

/** Where a new key comes from and how a lost one is recovered: the next step of a 401. */
const NEXT_STEP =
  'A new account gets a free key from POST /api/v1/keys with {"email": "you@example.org"}; an account adds a key with that call sent with one of its keys; if every key of an account is lost, the operator reissues one (npm run cli -- keys create --email <email> --tier <tier>, or POST /api/v1/admin/keys).';

/** 401 for a key that is unknown, malformed or revoked, saying what to do next. */
export const invalidKey = () =>
  new ApiError(
    401,
    'invalid_api_key',
    `The API key is unknown, malformed or revoked: check it for typos. ${NEXT_STEP}`,
  );

/**
 * Lookups of keys in flight, by key hash, so the concurrent requests of one key share one
 * query: when a busy key's cache entry expires, every request then in flight missed it and
 * each asked the database (50 at once under the benchmark's load, queueing on the pool).
 * Module level on purpose: it only holds promises still running.
 */
const lookingUp = new Map<string, Promise<Caller | null>>();

/** The active key behind `keyHash` from the database (and into the cache), or null. */
function lookUp(c: Context<AppEnv>, keyHash: string): Promise<Caller | null> {
  let pending = lookingUp.get(keyHash);
  if (!pending) {
    pending = readKey(c, keyHash).finally(() => lookingUp.delete(keyHash));
    lookingUp.set(keyHash, pending);
  }
  return pending;
}

async function readKey(c: Context<AppEnv>, keyHash: string): Promise<Caller | null> {
  const record = await findKeyByHash(c.env.deps.db, keyHash);
  if (!record || record.revoked) return null;
  const caller: Caller = {
    keyId: record.keyId,
    accountId: record.accountId,
    tier: record.tier,
    prefix: record.prefix,
  };
  rememberKey(keyHash, { ...caller, revoked: false });
  return caller;
}

/**
 * The hashes of keys whose records are in the key cache, by the raw key, so a hot keyed request
 * skips the checksum and the SHA-256 of its key. It decides nothing: the record is still looked
 * up in the key cache (or the database) by the hash, and its revocation checked as before. Only
 * keys found active enter, so made-up keys cannot fill it; an entry is dropped when its key
 * comes back after its record left the cache or is found revoked, and the oldest makes room
 * past the bound, as in the key cache. Module level on purpose, like the key cache; unlike it,
 * it holds raw keys (those of recent requests, which the process reads anyway as it serves them).
 */
const hashesOfKeys = new Map<string, string>();
const MAX_HASHED_KEYS = 10_000;

function rememberHash(raw: string, keyHash: string): void {
  if (hashesOfKeys.size >= MAX_HASHED_KEYS) hashesOfKeys.delete(hashesOfKeys.keys().next().value!);
  hashesOfKeys.set(raw, keyHash);
}

/**
 * Resolves a key and counts its hits. A cached key costs one store round trip (its limits and
 * its revocation flag together) and no database query; a key not in the cache costs one
 * database query and one store round trip. When the store cannot answer, the database decides
 * whether a cached key is still active, so a revocation is never missed.
 */
async function authenticate(c: Context<AppEnv>, mode: AccessMode, raw: string): Promise<Caller | null> {
  let keyHash = hashesOfKeys.get(raw);
  if (keyHash === undefined) {
    if (!isWellFormedKey(raw)) return null;
    keyHash = hashKey(raw);
  }
  const cached = cachedKey(keyHash);
  if (!cached) {
    hashesOfKeys.delete(raw);
    const caller = await lookUp(c, keyHash);
    if (caller) {
      rememberHash(raw, keyHash);
      applyLimits(c, caller, (await admit(c, hitsFor(c, mode, caller)))?.results);
    }
    return caller;
  }
  const admission = await admit(c, hitsFor(c, mode, cached), revokedFlag(cached.keyId));
  const caller = admission ? (admission.flagged ? null : cached) : await lookUp(c, keyHash);
  if (!caller) {
    hashesOfKeys.delete(raw);
    forgetKeys((record) => record.keyId === cached.keyId);
    return null;
  }
  applyLimits(c, caller, admission?.results);
  return caller;
}

/**
 * Authenticates and rate-limits a route. `key` routes need a valid key; `public` routes take
 * an optional one. A key that is present but bad is always a 401, never silently anonymous,
 * and counts against the IP cap. Each use of a key is recorded after the response is ready.
 */
export function access(mode: AccessMode, options: { queryKey?: boolean } = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.env.internalCaller) {
      c.set('caller', c.env.internalCaller);
      return next();
    }
    const raw = presentedKey(c, options.queryKey ?? false);
    const caller = raw ? await authenticate(c, mode, raw) : null;
    if (!caller) {
      applyLimits(c, null, (await admit(c, hitsFor(c, mode, null)))?.results);
      if (raw) throw invalidKey();
      if (mode === 'key') {
        throw new ApiError(
          401,
          'missing_api_key',
          `This endpoint needs an API key in X-Api-Key or Authorization: Bearer. ${NEXT_STEP}`,
          undefined,
          { 'WWW-Authenticate': 'Bearer realm="signal-intel"' },
        );
      }
    }
    c.set('caller', caller);
    try {
      await next();
    } finally {
      if (caller) {
        const { db, now, waitUntil } = c.env.deps;
        const write = recordUse(db, caller.keyId, now());
        if (write) waitUntil(write);
      }
    }
  };
}

/** The authenticated caller of a `key` route. */
export function callerOf(c: Context<AppEnv>): Caller {
  const caller = c.get('caller');
  if (!caller) throw new Error('callerOf used on a route without access("key")');
  return caller;
}
