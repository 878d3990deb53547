/** Outcome of counting one request against a rate limit. `reset` is epoch milliseconds. */
export interface LimitResult {
  success: boolean;
  limit: number;
  remaining: number;
  reset: number;
}

export interface LimitRule {
  /** Bucket family, e.g. `ip`, `free`, `pro`, `signup`: different rules never share counters. */
  name: string;
  limit: number;
  windowSeconds: number;
}

/**
 * The store port: rate limits and a small cache. Adapters: in-memory (embedded default)
 * and Upstash Redis (Workers, or Node with UPSTASH_* set).
 */
export interface Store {
  readonly kind: 'memory' | 'upstash';
  /** Counts one hit for `identifier` under `rule` (sliding window). */
  limit(rule: LimitRule, identifier: string): Promise<LimitResult>;
  get<T>(key: string): Promise<T | null>;
  set(key: string, value: unknown, ttlSeconds: number): Promise<void>;
  delete(key: string): Promise<void>;
  /** Round trip used by health checks. */
  ping(): Promise<void>;
}
