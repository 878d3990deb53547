import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client';
import { signals, sources } from '../db/schema';
import { fingerprint, isPgTime, isUuid, readCursor, encodeCursor, CursorError } from '../signals/cursor';
import { seekCondition, signalColumns, signalConditions, signalOrder, syncOrder } from '../signals/query';
import { signalJson, type SignalJson } from '../signals/serialize';
import { settledBound } from '../signals/settled';
import type { StreamFilter } from './filter';

/**
 * Changes to signals in sync order (`updated_at`, then id): what a stream sends, read through
 * the same keyset and index (`signals_sync_idx`) as `updated_since` paging.
 */

/** A position in the sync order: the key of the last change passed, as Postgres wrote it. */
export interface SyncKey {
  updatedAt: string;
  id: string;
}

/** What a change is: a new signal, a revision of a stored one, or a withdrawal. */
type ChangeKind = 'signal' | 'update' | 'retraction';

export interface Change {
  key: SyncKey;
  kind: ChangeKind;
  signal: SignalJson;
}

/** Microseconds since the epoch of a time as Postgres writes it (a JS Date keeps milliseconds). */
function micros(time: string): number {
  const fraction = /\.(\d{1,6})/.exec(time)?.[1] ?? '';
  return Date.parse(time.replace(/\.\d+/, '')) * 1000 + Number(fraction.padEnd(6, '0'));
}

/** Whether position `a` comes after `b` in the sync order. */
export const isAfter = (a: SyncKey, b: SyncKey): boolean => {
  const [ta, tb] = [micros(a.updatedAt), micros(b.updatedAt)];
  return ta === tb ? a.id > b.id : ta > tb;
};

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * Stream cursors are not bound to filters (a position in the change order is the same for
 * every filter), so a client may reconnect with other filters and still resume where it was.
 */
const STREAM_FINGERPRINT = fingerprint(['stream', 'sync']);

/** The SSE `id:` of a position: a sync cursor, base64url of `[fingerprint, updated_at, id]`. */
export const streamCursor = (key: SyncKey): string =>
  encodeCursor(STREAM_FINGERPRINT, JSON.stringify([key.updatedAt, key.id]));

/** The position a stream cursor names; a `CursorError` when it is not one. */
export function readStreamCursor(cursor: string): SyncKey {
  const key = readCursor(cursor, STREAM_FINGERPRINT);
  const [updatedAt, id] = key;
  if (key.length === 2 && isPgTime(updatedAt) && isUuid(id)) return { updatedAt, id };
  throw new CursorError('is not a stream cursor; pass the id of the last event you received');
}

/**
 * The position of everything settled right now (see `settledBound`): every change before it is
 * final, every change after it will be read by the hub. Where a stream without a cursor starts.
 */
export async function settledKey(db: Database): Promise<SyncKey> {
  const [row] = await queryRows<{ at: string }>(db, sql`SELECT to_json(${settledBound(0)}) #>> '{}' AS at`);
  return { updatedAt: row!.at, id: NIL_UUID };
}

const keyText = sql<string>`json_build_array(${signals.updatedAt}, ${signals.id})::text`;
const seek = (key: SyncKey) => seekCondition({ order: 'sync', updatedAt: key.updatedAt, id: key.id });

/**
 * Up to `limit` changes after `after` that pass `filter` (without `distinct`), oldest first,
 * through `until` (a position) or, without one, as far as changes are settled. Retracted
 * signals are included, as in sync. One query.
 */
export async function readChanges(
  db: Database,
  filter: StreamFilter,
  after: SyncKey,
  limit: number,
  until?: SyncKey,
): Promise<Change[]> {
  // `updatedSince` switches the conditions to sync (retractions included); the seek is exact.
  const since = new Date(Date.parse(after.updatedAt) - 1);
  const upTo: SQL = until
    ? sql`(${signals.updatedAt}, ${signals.id}) <= (${until.updatedAt}::timestamptz, ${until.id}::uuid)`
    : sql`${signals.updatedAt} < ${settledBound(0)}`;
  const rows = await db
    .select({
      ...signalColumns,
      key: keyText,
      fresh: sql<boolean>`${signals.updatedAt} = ${signals.ingestedAt}`,
    })
    .from(signals)
    .innerJoin(sources, eq(sources.id, signals.sourceId))
    .where(and(signalConditions({ ...filter, distinct: undefined, updatedSince: since }), seek(after), upTo))
    .orderBy(...syncOrder)
    .limit(limit);
  return rows.map(({ key, fresh, ...row }) => {
    const [updatedAt, id] = JSON.parse(key) as [string, string];
    return {
      key: { updatedAt, id },
      kind: row.retractedAt ? 'retraction' : fresh ? 'signal' : 'update',
      signal: signalJson(row),
    };
  });
}

/**
 * `distinct=event`: the lead of each of `eventIds` for `filter`, i.e. its strongest live member
 * that passes the other filters (the signal a `distinct=event` list shows). Events without one
 * are absent. One query.
 */
async function eventLeads(
  db: Database,
  filter: StreamFilter,
  eventIds: string[],
): Promise<Map<string, SignalJson>> {
  if (eventIds.length === 0) return new Map();
  const rows = await db
    .selectDistinctOn([signals.eventId], signalColumns)
    .from(signals)
    .innerJoin(sources, eq(sources.id, signals.sourceId))
    .where(and(signalConditions({ ...filter, distinct: undefined }), inArray(signals.eventId, eventIds)))
    .orderBy(signals.eventId, ...signalOrder);
  return new Map(rows.map((row) => [row.eventId, signalJson(row)]));
}

/**
 * The changes a `distinct=event` stream sends for `changes`: one per event (at the position of
 * its last change), carrying the event's lead: `signal` for a new event, `update` for a change to
 * a known one (a report joining it, a revision); an event left without a matching live member is
 * a retraction of the changed signal.
 */
export async function distinctChanges(
  db: Database,
  filter: StreamFilter,
  changes: Change[],
): Promise<Change[]> {
  const last = new Map<string, Change>();
  for (const change of changes) {
    last.delete(change.signal.event_id);
    last.set(change.signal.event_id, change);
  }
  const leads = await eventLeads(db, filter, [...last.keys()]);
  return [...last.values()].map((change) => {
    const lead = leads.get(change.signal.event_id);
    if (!lead) return { ...change, kind: 'retraction' };
    // New to the stream only when the change is a new signal that founded its event.
    const founded = change.kind === 'signal' && lead.id === change.signal.id && lead.event_id === lead.id;
    const kind = founded ? 'signal' : 'update';
    return { key: change.key, kind, signal: lead };
  });
}

export { CursorError };
