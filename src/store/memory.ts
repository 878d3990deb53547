import type { Admission, LimitHit, LimitResult, LimitRule, Store } from './types';

interface Window {
  start: number;
  count: number;
  previous: number;
  windowMs: number;
}

// Every so many new buckets, buckets idle for two windows (which count for nothing) and
// expired cache entries are dropped, so a long-running server's memory stays bounded.
const SWEEP_EVERY = 1000;

/**
 * In-memory store for the embedded default and tests. Its limiter is the same sliding-window
 * approximation as @upstash/ratelimit's slidingWindow: the previous fixed window's count is
 * weighted by how much of it still overlaps the sliding window, a refused request is not
 * counted, and `reset` is the end of the current fixed window.
 */
export function memoryStore(now: () => number = Date.now): Store {
  const windows = new Map<string, Window>();
  const cache = new Map<string, { value: string; expires: number }>();
  let created = 0;

  function sweep(t: number) {
    for (const [key, w] of windows) if (w.start < t - 2 * w.windowMs) windows.delete(key);
    for (const [key, entry] of cache) if (entry.expires <= t) cache.delete(key);
  }

  /** The window of `rule` for `identifier` at `t`, rolled forward when time has moved on. */
  function windowAt(rule: LimitRule, identifier: string, t: number) {
    const windowMs = rule.windowSeconds * 1000;
    const start = Math.floor(t / windowMs) * windowMs;
    const key = `${rule.name}:${identifier}`;
    let w = windows.get(key);
    if (!w && ++created % SWEEP_EVERY === 0) sweep(t);
    if (!w || w.start < start - windowMs) w = { start, count: 0, previous: 0, windowMs };
    else if (w.start < start) w = { start, count: 0, previous: w.count, windowMs };
    windows.set(key, w);
    const overlap = 1 - (t - start) / windowMs;
    return { w, used: Math.floor(w.previous * overlap) + w.count, reset: start + windowMs };
  }

  function hit(rule: LimitRule, identifier: string): LimitResult {
    const { w, used, reset } = windowAt(rule, identifier, now());
    const success = used < rule.limit;
    if (success) w.count += 1;
    return {
      success,
      limit: rule.limit,
      remaining: Math.max(0, rule.limit - used - (success ? 1 : 0)),
      reset,
    };
  }

  function live(key: string) {
    const entry = cache.get(key);
    if (entry && entry.expires <= now()) cache.delete(key);
    return entry && entry.expires > now() ? entry : undefined;
  }

  return {
    kind: 'memory',
    async admit(hits: LimitHit[], flag?: string): Promise<Admission> {
      return {
        results: hits.map(({ rule, identifier }) => hit(rule, identifier)),
        flagged: flag !== undefined && live(flag) !== undefined,
      };
    },
    async limit(rule: LimitRule, identifier: string): Promise<LimitResult> {
      return hit(rule, identifier);
    },
    async peek(rule: LimitRule, identifier: string): Promise<LimitResult> {
      const { used, reset } = windowAt(rule, identifier, now());
      return {
        success: used < rule.limit,
        limit: rule.limit,
        remaining: Math.max(0, rule.limit - used),
        reset,
      };
    },
    async get<T>(key: string): Promise<T | null> {
      const hit = live(key);
      return hit ? (JSON.parse(hit.value) as T) : null;
    },
    async set(key: string, value: unknown, ttlSeconds: number): Promise<void> {
      cache.set(key, { value: JSON.stringify(value), expires: now() + ttlSeconds * 1000 });
    },
    async delete(key: string): Promise<void> {
      cache.delete(key);
    },
    async ping(): Promise<void> {},
  };
}
