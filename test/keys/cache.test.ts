import { describe, expect, it } from 'vitest';
import { cachedKey, forgetKeys, rememberKey } from '../../src/keys/cache';
import type { KeyRecord } from '../../src/keys/record';

const T0 = Date.parse('2026-11-22T00:00:00Z');
let n = 0;
const record = (): KeyRecord => ({
  keyId: `key-${++n}`,
  accountId: `account-${n}`,
  prefix: 'sig_test',
  tier: 'free',
  revoked: false,
});

/** The in-process key cache, on an injected clock (no sleeping). */
describe('key cache', () => {
  it('serves an entry for 30 s after it is remembered, and not a moment longer', () => {
    const hash = `hash-${n}-ttl`;
    const rec = record();
    rememberKey(hash, rec, T0);
    expect(cachedKey(hash, T0)).toBe(rec);
    expect(cachedKey(hash, T0 + 29_999)).toBe(rec);
    expect(cachedKey(hash, T0 + 30_000)).toBeNull();
    // Expired entries are dropped, not revived by an earlier clock.
    expect(cachedKey(hash, T0)).toBeNull();
  });

  it('starts the 30 s again when the entry is remembered again', () => {
    const hash = `hash-${n}-renew`;
    const rec = record();
    rememberKey(hash, rec, T0);
    rememberKey(hash, rec, T0 + 20_000);
    expect(cachedKey(hash, T0 + 49_999)).toBe(rec);
    expect(cachedKey(hash, T0 + 50_000)).toBeNull();
  });

  it('forgets the entries it is told to, and only those', () => {
    const [a, b] = [record(), record()];
    rememberKey('hash-forget-a', a, T0);
    rememberKey('hash-forget-b', b, T0);
    forgetKeys((r) => r.keyId === a.keyId);
    expect(cachedKey('hash-forget-a', T0 + 1)).toBeNull();
    expect(cachedKey('hash-forget-b', T0 + 1)).toBe(b);
  });
});
