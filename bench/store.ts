import type { LimitRule, Store } from '../src/store/types';

const raise = (rule: LimitRule): LimitRule => ({ ...rule, limit: 1_000_000_000 });
import { memoryStore } from '../src/store/memory';

/**
 * The benchmark's store: the real in-memory limiter, still counting every request (so its cost
 * is measured), with each rule's limit raised to a billion so the pro key is never refused.
 * `cache: false` (BENCH_CACHE=off on the bench server) makes every cached read a miss.
 */
export function benchStore(inner: Store = memoryStore(), { cache = true } = {}): Store {
  // Without cache, cached answers are never found nor kept: every request is a miss.
  const cachedKey = (key: string) => !cache && (key.startsWith('cache:') || key.startsWith('public:'));
  return {
    ...inner,
    kind: inner.kind,
    admit: (hits, flag) =>
      inner.admit(
        hits.map((hit) => ({ ...hit, rule: raise(hit.rule) })),
        flag,
      ),
    limit: (rule, identifier) => inner.limit(raise(rule), identifier),
    peek: (rule, identifier) => inner.peek(raise(rule), identifier),
    get: (key) => (cachedKey(key) ? Promise.resolve(null) : inner.get(key)),
    set: (key, value, ttl) => (cachedKey(key) ? Promise.resolve() : inner.set(key, value, ttl)),
    delete: (key) => inner.delete(key),
    ping: () => inner.ping(),
  };
}
