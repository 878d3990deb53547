import { createHash } from 'node:crypto';

/**
 * API key format: `sig_` + 34 random base62 characters + a 6-character base62 CRC32 of
 * everything before it (44 characters). The checksum lets a mistyped key be refused without
 * a database query and lets secret scanners recognise our keys.
 */
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = /^sig_[0-9A-Za-z]{40}$/;
const RANDOM_LENGTH = 34;
const CHECKSUM_LENGTH = 6;
export const KEY_PREFIX_LENGTH = 12;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE) of the ASCII string `text`. */
export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) {
    crc = CRC_TABLE[(crc ^ text.charCodeAt(i)) & 0xff]! ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function checksum(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

function randomBase62(length: number): string {
  let out = '';
  const bytes = new Uint8Array(length * 2);
  while (out.length < length) {
    crypto.getRandomValues(bytes);
    // 248 = 4 × 62: rejecting bytes above it keeps every character equally likely.
    for (const byte of bytes) if (byte < 248 && out.length < length) out += BASE62[byte % 62];
  }
  return out;
}

/** A new random API key with its checksum. */
export function generateKey(): string {
  const body = `sig_${randomBase62(RANDOM_LENGTH)}`;
  return body + checksum(body);
}

/** True when `key` has our shape and its checksum matches. */
export function isWellFormedKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(0, -CHECKSUM_LENGTH);
  return checksum(body) === key.slice(-CHECKSUM_LENGTH);
}

/** The part of a key safe to show and store in clear: `sig_` and 8 characters. */
export const keyPrefix = (key: string): string => key.slice(0, KEY_PREFIX_LENGTH);

/**
 * Hex SHA-256 of the key: the only form in which keys are stored. Synchronous `node:crypto`
 * (native on Workers with nodejs_compat) because it runs on every keyed request, where
 * WebCrypto's promise and thread-pool hop cost more than the hash itself.
 */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
