import type { Context } from 'hono';
import type { AppEnv, Caller } from '../deps';
import type { LimitResult, LimitRule } from '../store/types';
import { ApiError } from './problem';

/** The limits of the spec and DESIGN §3. */
export const RULES = {
  public: { name: 'ip', limit: 60, windowSeconds: 60 },
  free: { name: 'free', limit: 100, windowSeconds: 3600 },
  pro: { name: 'pro', limit: 2000, windowSeconds: 3600 },
  signup: { name: 'signup', limit: 5, windowSeconds: 3600 },
} satisfies Record<string, LimitRule>;

const STORE_TIMEOUT_MS = 1000;

/** Counts a hit, or null when the store fails or is slower than 1 s (fail open). */
export async function countHit(
  c: Context<AppEnv>,
  rule: LimitRule,
  identifier: string,
): Promise<LimitResult | null> {
  const { store, log } = c.env.deps;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      store.limit(rule, identifier),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('store timeout')), STORE_TIMEOUT_MS);
      }),
    ]);
  } catch (error) {
    log.warn('rate limiter unavailable; failing open', { rule: rule.name, error: String(error) });
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** Sets the X-RateLimit-* headers and throws 429 when `result` is over its limit. */
export function applyLimit(c: Context, tier: string, result: LimitResult | null): void {
  if (!result) return;
  const resetSeconds = Math.ceil(result.reset / 1000);
  c.header('X-RateLimit-Limit', String(result.limit));
  c.header('X-RateLimit-Remaining', String(result.success ? result.remaining : 0));
  c.header('X-RateLimit-Reset', String(resetSeconds));
  c.header('X-RateLimit-Tier', tier);
  if (!result.success) {
    const retryAfter = Math.max(1, Math.ceil((result.reset - Date.now()) / 1000));
    throw new ApiError(
      429,
      'rate_limited',
      `Rate limit of ${result.limit} requests exceeded; retry in ${retryAfter} s.`,
      undefined,
      {
        'Retry-After': String(retryAfter),
        'X-RateLimit-Limit': String(result.limit),
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': String(resetSeconds),
        'X-RateLimit-Tier': tier,
      },
    );
  }
}

/**
 * Applies the per-key and per-IP limits to a request. Pro keys bypass the IP cap; free keys
 * on public endpoints count against both; anonymous calls and failed key attempts count
 * against the IP cap.
 */
export async function enforceLimits(
  c: Context<AppEnv>,
  request: { mode: 'key' | 'public'; caller: Caller | null; failedKey: boolean },
): Promise<void> {
  const { caller } = request;
  const ip = c.env.deps.clientIp(c);
  if (!caller) {
    applyLimit(c, 'public', await countHit(c, RULES.public, ip));
    return;
  }
  const keyRule = caller.tier === 'pro' ? RULES.pro : RULES.free;
  const keyHit = countHit(c, keyRule, caller.keyId);
  const ipHit = request.mode === 'public' && caller.tier === 'free' ? countHit(c, RULES.public, ip) : null;
  const [keyResult, ipResult] = await Promise.all([keyHit, ipHit]);
  if (ipResult && !ipResult.success) applyLimit(c, 'public', ipResult);
  applyLimit(c, caller.tier, keyResult);
}
