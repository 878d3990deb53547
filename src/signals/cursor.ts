import { orderOf, type SeekKey, type SignalFilter } from './query';
import { isAcceptedTime } from './timestamps';

/**
 * Keyset cursors for signal lists. A cursor is base64url text of `[fingerprint, ...key]`: the
 * sort key of the last row a page held, and a fingerprint of the order and filters it was read
 * with, so a cursor used with other filters is refused rather than silently paging a different
 * list. Not a secret and not signed: a hand-made cursor can only start a page of the same
 * filtered list somewhere else, which the filters already allow.
 */

/** A cursor that cannot be read, or that belongs to another query. */
export class CursorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CursorError';
  }
}

/** Longer than any cursor this module writes; refuses junk before decoding it. */
const MAX_CURSOR_LENGTH = 300;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A timestamp as Postgres writes one in JSON (`2026-11-20T06:00:00.123456+00:00`). */
const PG_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}(:\d{2}){0,2})$/;

/**
 * cyrb53: a fast 53-bit string hash. Tells one query's cursor from another's; it guards against
 * mistakes, not adversaries (see above), so a cryptographic hash would buy nothing here.
 */
function hash53(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** A fingerprint of a list's identity (its scope, order and filters), for `encodeCursor`. */
export const fingerprint = (identity: unknown): string => hash53(JSON.stringify(identity));

/** The order and filters of a signal list, written the same way whatever order they came in. */
export function signalListFingerprint(filter: SignalFilter): string {
  const entries = Object.entries(filter)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]): [string, unknown] => [
      name,
      value instanceof Date
        ? value.toISOString()
        : Array.isArray(value)
          ? (value as unknown[]).slice().sort()
          : value,
    ])
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return fingerprint(['signals', orderOf(filter), entries]);
}

const toBase64Url = (text: string) => btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const fromBase64Url = (text: string) => atob(text.replace(/-/g, '+').replace(/_/g, '/'));

const UNREADABLE = 'is not a cursor this API wrote; pass pagination.next_cursor as it came';

/**
 * The cursor that follows a page whose last row had the sort key `keyJson`, as Postgres wrote
 * it in JSON (for signals `[score, published_at, id]`, or `[updated_at, id]` in sync order).
 */
export function encodeCursor(listFingerprint: string, keyJson: string): string {
  const key = JSON.parse(keyJson) as unknown[];
  return toBase64Url(JSON.stringify([listFingerprint, ...key]));
}

/** The sort key parts of `cursor`, which must belong to the list `listFingerprint` names. */
export function readCursor(cursor: string, listFingerprint: string): unknown[] {
  if (cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) throw new CursorError(UNREADABLE);
  let parts: unknown;
  try {
    parts = JSON.parse(fromBase64Url(cursor));
  } catch {
    throw new CursorError(UNREADABLE);
  }
  if (!Array.isArray(parts) || typeof parts[0] !== 'string') throw new CursorError(UNREADABLE);
  if (parts[0] !== listFingerprint) {
    throw new CursorError('belongs to a list with other filters or order; repeat the same filters with it');
  }
  return parts.slice(1);
}

/**
 * A timestamp as Postgres writes it in JSON, microseconds and offset kept, on a real calendar
 * day within the accepted range: a hand-made cursor must not carry SQL a date it refuses.
 */
export const isPgTime = (value: unknown): value is string =>
  typeof value === 'string' && PG_TIME.test(value) && isAcceptedTime(value);

export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);

/** Where the page after `cursor` starts in the list of `filter`. */
export function signalSeekKey(cursor: string, filter: SignalFilter): SeekKey {
  const key = readCursor(cursor, signalListFingerprint(filter));
  if (orderOf(filter) === 'sync') {
    const [updatedAt, id] = key;
    if (key.length === 2 && isPgTime(updatedAt) && isUuid(id)) return { order: 'sync', updatedAt, id };
  } else {
    const [score, publishedAt, id] = key;
    if (
      key.length === 3 &&
      typeof score === 'number' &&
      Number.isFinite(score) &&
      isPgTime(publishedAt) &&
      isUuid(id)
    ) {
      return { order: 'rank', score, publishedAt, id };
    }
  }
  throw new CursorError(UNREADABLE);
}
