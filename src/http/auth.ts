import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv, Caller } from '../deps';
import { hashKey, isWellFormedKey } from '../keys/key';
import { findKeyByHash } from '../keys/service';
import { ApiError } from './problem';
import { enforceLimits } from './ratelimit';

export type AccessMode = 'key' | 'public';

/** The raw key from `X-Api-Key`, `Authorization: Bearer`, or (feeds only) `?api_key=`. */
export function presentedKey(c: Context, allowQueryKey: boolean): string | null {
  const header = c.req.header('x-api-key');
  if (header) return header.trim();
  const authorization = c.req.header('authorization');
  const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
  if (bearer) return bearer[1]!;
  if (allowQueryKey) return c.req.query('api_key') ?? null;
  return null;
}

const invalidKey = () =>
  new ApiError(401, 'invalid_api_key', 'The API key is unknown, malformed or revoked.');

async function resolveCaller(c: Context<AppEnv>, raw: string): Promise<Caller | null> {
  if (!isWellFormedKey(raw)) return null;
  const record = await findKeyByHash(c.env.deps.db, await hashKey(raw));
  if (!record || record.revoked) return null;
  return { keyId: record.keyId, accountId: record.accountId, tier: record.tier, prefix: record.prefix };
}

/**
 * Authenticates and rate-limits a route. `key` routes need a valid key; `public` routes take
 * an optional one. A key that is present but bad is always a 401, never silently anonymous.
 */
export function access(mode: AccessMode, options: { queryKey?: boolean } = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const raw = presentedKey(c, options.queryKey ?? false);
    const caller = raw ? await resolveCaller(c, raw) : null;
    c.set('caller', caller);
    await enforceLimits(c, { mode, caller, failedKey: raw !== null && caller === null });
    if (raw && !caller) throw invalidKey();
    if (!caller && mode === 'key') {
      throw new ApiError(
        401,
        'missing_api_key',
        'This endpoint needs an API key in X-Api-Key or Authorization: Bearer.',
        undefined,
        { 'WWW-Authenticate': 'Bearer realm="signal-intel"' },
      );
    }
    await next();
  };
}

/** The authenticated caller of a `key` route. */
export function callerOf(c: Context<AppEnv>): Caller {
  const caller = c.get('caller');
  if (!caller) throw new Error('callerOf used on a route without access("key")');
  return caller;
}
