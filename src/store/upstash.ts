import { Ratelimit } from '@upstash/ratelimit';
import { Redis } from '@upstash/redis/cloudflare';
import type { Admission, LimitHit, LimitResult, LimitRule, Store } from './types';

export interface UpstashConfig {
  UPSTASH_REDIS_REST_URL: string;
  UPSTASH_REDIS_REST_TOKEN: string;
}

// EVAL rather than EXISTS on purpose: the auto-pipeline keeps read commands and write commands
// (EVALSHA of the limiter is one) in separate /pipeline requests, and the flag check must ride
// in the limiter's request to keep an authenticated call at one store round trip.
const FLAG_SCRIPT = "return redis.call('EXISTS', KEYS[1])";

/**
 * The Upstash Redis store (`@upstash/redis` over REST, `@upstash/ratelimit` sliding windows).
 * Commands issued in the same tick go out as one /pipeline request (auto-pipelining), which is
 * how `admit` costs one round trip. The client's own timeout is off: callers race the store
 * against their own deadline and fail open, which a silent "success" would hide.
 */
export function upstashStore(config: UpstashConfig, options: { prefix?: string } = {}): Store {
  // The prefix namespaces every key, so deployments (or tests) can share one database.
  const prefix = options.prefix ?? 'si';
  const redis = new Redis({
    url: config.UPSTASH_REDIS_REST_URL,
    token: config.UPSTASH_REDIS_REST_TOKEN,
    enableAutoPipelining: true,
    // One quick retry: the limiter's caller gives up after a second anyway.
    retry: { retries: 1, backoff: () => 50 },
  });
  const limiters = new Map<string, Ratelimit>();
  const limiter = (rule: LimitRule): Ratelimit => {
    const id = `${rule.name}:${rule.limit}:${rule.windowSeconds}`;
    let found = limiters.get(id);
    if (!found) {
      found = new Ratelimit({
        redis,
        limiter: Ratelimit.slidingWindow(rule.limit, `${rule.windowSeconds} s`),
        prefix: `${prefix}:rl:${rule.name}`,
        timeout: 0,
        analytics: false,
      });
      limiters.set(id, found);
    }
    return found;
  };
  const key = (name: string) => `${prefix}:kv:${name}`;

  return {
    kind: 'upstash',
    async admit(hits: LimitHit[], flag?: string): Promise<Admission> {
      // Both calls are issued synchronously, in this tick, so they share one pipeline.
      const counted = Promise.all(
        hits.map(({ rule, identifier }) => limiter(rule).limit(identifier) as Promise<LimitResult>),
      );
      const flagged =
        flag === undefined ? Promise.resolve(0) : redis.eval<[], number>(FLAG_SCRIPT, [key(flag)], []);
      const [results, exists] = await Promise.all([counted, flagged]);
      return {
        results: results.map(({ success, limit, remaining, reset, pending }) => ({
          success,
          limit,
          remaining,
          reset,
          pending,
        })),
        flagged: Number(exists) === 1,
      };
    },
    async limit(rule: LimitRule, identifier: string): Promise<LimitResult> {
      const { success, limit, remaining, reset, pending } = await limiter(rule).limit(identifier);
      return { success, limit, remaining, reset, pending };
    },
    async peek(rule: LimitRule, identifier: string): Promise<LimitResult> {
      const { remaining, reset, limit } = await limiter(rule).getRemaining(identifier);
      return { success: remaining > 0, limit, remaining, reset };
    },
    async get<T>(name: string): Promise<T | null> {
      return redis.get<T>(key(name));
    },
    async set(name: string, value: unknown, ttlSeconds: number): Promise<void> {
      await redis.set(key(name), value, { ex: Math.max(1, Math.ceil(ttlSeconds)) });
    },
    async delete(name: string): Promise<void> {
      await redis.del(key(name));
    },
    async ping(): Promise<void> {
      await redis.ping();
    },
  };
}
