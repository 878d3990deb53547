import { describe, expect, it } from 'vitest';
import { crc32, generateKey, hashKey, isWellFormedKey, keyPrefix } from '../../src/keys/key';

describe('API key format', () => {
  it('is sig_ + 34 base62 + 6 checksum characters', () => {
    const key = generateKey();
    expect(key).toMatch(/^sig_[0-9A-Za-z]{40}$/);
    expect(key).toHaveLength(44);
    expect(isWellFormedKey(key)).toBe(true);
    expect(keyPrefix(key)).toBe(key.slice(0, 12));
  });

  it('refuses a key with one character changed', () => {
    const key = generateKey();
    const swapped = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    expect(isWellFormedKey(swapped)).toBe(false);
    expect(isWellFormedKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedKey(`xyz_${key.slice(4)}`)).toBe(false);
  });

  it('never repeats', () => {
    const keys = new Set(Array.from({ length: 1000 }, generateKey));
    expect(keys.size).toBe(1000);
  });

  it('uses the standard CRC-32', () => {
    expect(crc32('123456789')).toBe(0xcbf43926);
  });

  it('hashes with SHA-256 in hex', async () => {
    expect(hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
