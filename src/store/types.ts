/** Outcome of counting one request against a rate limit. `reset` is epoch milliseconds. */
export interface LimitResult {
  success: boolean;
  limit: number;
  remaining: number;
  reset: number;
  /** Background work the adapter still has to finish (Upstash); hand it to `waitUntil`. */
  pending?: Promise<unknown>;
}

export interface LimitRule {
  /** Bucket family, e.g. `ip`, `free`, `pro`, `signup`: different rules never share counters. */
  name: string;
  limit: number;
  windowSeconds: number;
}

/** One hit to count: a rule and the identifier (IP or key id) it is counted for. */
export interface LimitHit {
  rule: LimitRule;
  identifier: string;
}

/** What `admit` found: one result per hit, in order, and whether the flag key exists. */
export interface Admission {
  results: LimitResult[];
  flagged: boolean;
}

/**
 * The store port: rate limits and a small cache. Adapters: in-memory (embedded default)
 * and Upstash Redis (Workers, or Node with UPSTASH_* set).
 */
export interface Store {
  readonly kind: 'memory' | 'upstash';
  /**
   * Counts one hit on each of `hits` (sliding window) and reads whether the key `flag` is set,
   * all in ONE round trip: this is the whole store cost of an authenticated request.
   */
  admit(hits: LimitHit[], flag?: string): Promise<Admission>;
  /** Counts one hit for `identifier` under `rule`: `admit` with a single hit. */
  limit(rule: LimitRule, identifier: string): Promise<LimitResult>;
  /** The current state of a limit without counting a hit. */
  peek(rule: LimitRule, identifier: string): Promise<LimitResult>;
  get<T>(key: string): Promise<T | null>;
  set(key: string, value: unknown, ttlSeconds: number): Promise<void>;
  delete(key: string): Promise<void>;
  /** Round trip used by health checks. */
  ping(): Promise<void>;
}

const ROOT = Symbol('root store');

/** A per-request view of `root` whose calls go through `wrap`; `rootStore` maps it back. */
export const storeView = (root: Store, wrap: (call: () => unknown) => unknown): Store =>
  new Proxy(root, {
    get(target, property, receiver) {
      if (property === ROOT) return rootStore(target);
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => wrap(() => (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });

/** The shared store behind a per-request view (itself when it is not a view). */
export const rootStore = (store: Store): Store => (store as { [ROOT]?: Store })[ROOT] ?? store;
