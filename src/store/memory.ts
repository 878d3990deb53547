import type { LimitResult, LimitRule, Store } from './types';

interface Window {
  start: number;
  count: number;
  previous: number;
}

/**
 * In-memory store for the embedded default and tests. Its limiter is the same sliding-window
 * approximation as @upstash/ratelimit's slidingWindow: the previous fixed window's count is
 * weighted by how much of it still overlaps the sliding window.
 */
export function memoryStore(now: () => number = Date.now): Store {
  const windows = new Map<string, Window>();
  const cache = new Map<string, { value: string; expires: number }>();

  return {
    kind: 'memory',
    async limit(rule: LimitRule, identifier: string): Promise<LimitResult> {
      const windowMs = rule.windowSeconds * 1000;
      const t = now();
      const start = Math.floor(t / windowMs) * windowMs;
      const key = `${rule.name}:${identifier}`;
      let w = windows.get(key);
      if (!w || w.start < start - windowMs) w = { start, count: 0, previous: 0 };
      else if (w.start < start) w = { start, count: 0, previous: w.count };
      windows.set(key, w);
      const overlap = 1 - (t - start) / windowMs;
      const used = Math.floor(w.previous * overlap) + w.count;
      const success = used < rule.limit;
      if (success) w.count += 1;
      return {
        success,
        limit: rule.limit,
        remaining: Math.max(0, rule.limit - used - (success ? 1 : 0)),
        reset: start + windowMs,
      };
    },
    async get<T>(key: string): Promise<T | null> {
      const hit = cache.get(key);
      if (!hit || hit.expires <= now()) return null;
      return JSON.parse(hit.value) as T;
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
