import type { Context } from 'hono';
import type { AppEnv, Caller } from '../deps';
import type { Admission, LimitHit, LimitResult, LimitRule } from '../store/types';
import { ApiError } from './problem';

/** The rate limits (docs/keys-and-limits.md): per IP, per key tier, signups, keys added, admin tokens. */
export const RULES = {
  public: { name: 'ip', limit: 60, windowSeconds: 60 },
  free: { name: 'free', limit: 100, windowSeconds: 3600 },
  pro: { name: 'pro', limit: 2000, windowSeconds: 3600 },
  signup: { name: 'signup', limit: 5, windowSeconds: 3600 },
  /** Failed admin-token attempts per client IP; over it, every admin call from there is refused. */
  adminFailures: { name: 'admin-fail', limit: 10, windowSeconds: 900 },
} satisfies Record<string, LimitRule>;

/** The per-key rule of a tier. */
export const keyRule = (tier: Caller['tier']): LimitRule => (tier === 'pro' ? RULES.pro : RULES.free);

/**
 * Counts `hits` and reads `flag` in one store round trip, or null when the store fails or is
 * slower than 1 s: the request is then served without limit headers (fail open) and logged.
 * The deadline is the request's store view's (`requestStore`, set up by `observe` for every
 * request): a second one here cost each request another timer and promise race.
 */
export async function admit(c: Context<AppEnv>, hits: LimitHit[], flag?: string): Promise<Admission | null> {
  // `log` is read only on failure: the request's logger is made on first read (see `observe`).
  const { deps } = c.env;
  try {
    const admission = await deps.store.admit(hits, flag);
    for (const result of admission.results) if (result.pending) deps.waitUntil(result.pending);
    return admission;
  } catch (error) {
    deps.log.warn('store unavailable; failing open', {
      rules: hits.map((h) => h.rule.name),
      error: String(error),
    });
    return null;
  }
}

/** Counts one hit of `rule`; null when the store is unavailable. */
export async function countHit(
  c: Context<AppEnv>,
  rule: LimitRule,
  identifier: string,
): Promise<LimitResult | null> {
  return (await admit(c, [{ rule, identifier }]))?.results[0] ?? null;
}

/** Sets the X-RateLimit-* headers and throws 429 when `result` is over its limit. */
export function applyLimit(c: Context<AppEnv>, tier: string, result: LimitResult | null | undefined): void {
  if (!result) return;
  const resetSeconds = Math.ceil(result.reset / 1000);
  const headers = {
    'X-RateLimit-Limit': String(result.limit),
    'X-RateLimit-Remaining': String(result.success ? result.remaining : 0),
    'X-RateLimit-Reset': String(resetSeconds),
    'X-RateLimit-Tier': tier,
  };
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  if (!result.success) {
    const retryAfter = Math.max(1, Math.ceil((result.reset - c.env.deps.now().getTime()) / 1000));
    throw new ApiError(
      429,
      'rate_limited',
      `Rate limit of ${result.limit} requests exceeded; retry in ${retryAfter} s.`,
      undefined,
      { ...headers, 'Retry-After': String(retryAfter) },
    );
  }
}

/**
 * The hits a request counts. Anonymous calls and failed key attempts count against the IP
 * cap; a key counts against its tier's rule, and a free key on a public endpoint against the
 * IP cap as well (pro keys bypass it). The key's hit comes first.
 */
export function hitsFor(c: Context<AppEnv>, mode: 'key' | 'public', caller: Caller | null): LimitHit[] {
  // The client's address is worked out only when a rule counts it: parsing it (ipaddr.js) cost
  // a keyed /signals request, which never uses it, about 0.04 ms of CPU.
  const ip = (): LimitHit => ({ rule: RULES.public, identifier: c.env.deps.clientIp(c) });
  if (!caller) return [ip()];
  const key: LimitHit = { rule: keyRule(caller.tier), identifier: caller.keyId };
  return mode === 'public' && caller.tier === 'free' ? [key, ip()] : [key];
}

/** Applies what `admit` counted for `hitsFor(...)`: the IP cap's 429 first, then the key's headers. */
export function applyLimits(
  c: Context<AppEnv>,
  caller: Caller | null,
  results: LimitResult[] | undefined,
): void {
  if (!results) return;
  if (!caller) return applyLimit(c, 'public', results[0]);
  const ipResult = results[1];
  if (ipResult && !ipResult.success) applyLimit(c, 'public', ipResult);
  applyLimit(c, caller.tier, results[0]);
}
