import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client';
import { PaginationSchema } from '../http/openapi';
import { SignalSchema } from '../signals/serialize';
import { LAYERS } from '../vocab';

/**
 * Reading by event: one event with its strongest signal and its member signals, paged like
 * every list. A merged event's id keeps answering, by a redirect to the event it joined.
 */

/** How many merges a read follows; merges point at live events, so chains stay short. */
const MAX_MERGE_HOPS = 10;

export const EventSchema = z
  .object({
    id: z.uuid().openapi({ example: '9d2f4c1a-3b7e-4e2a-8f6d-1c0b9a8e7d65' }),
    threat_layer: z
      .enum(LAYERS)
      .openapi({ description: 'The layer of the signal that founded the event.', example: 'disaster' }),
    country_codes: z
      .array(z.string())
      .openapi({ description: 'Every country any of its signals names.', example: ['TR', 'SY'] }),
    first_reported_at: z.string().openapi({
      description: 'Publication time of its earliest signal.',
      example: '2026-11-20T06:02:00.000Z',
    }),
    last_reported_at: z.string().openapi({
      description: 'Publication time of its latest signal.',
      example: '2026-11-20T11:40:00.000Z',
    }),
    severity: z.number().min(0).max(10).openapi({
      description: "The strongest signal's `significance_score` (corroboration included).",
      example: 8.9,
    }),
    corroboration: z.number().int().min(0).openapi({
      description: 'Independent publishers telling it (outlets of one publisher family count once).',
      example: 4,
    }),
    signal_count: z
      .number()
      .int()
      .min(0)
      .openapi({ description: 'Its signals, echoes included.', example: 7 }),
    strongest_signal: SignalSchema.openapi({
      description: 'Its signal with the highest score (then newest, then lowest id): the first of `members`.',
    }),
    members: z.object({ data: z.array(SignalSchema), pagination: PaginationSchema }).openapi('EventMembers', {
      description:
        'Its signals in the order of /api/v1/signals (score, newest, id), one page at a time: `limit`, `offset` or `cursor` (`members.pagination.next_cursor`).',
    }),
  })
  .openapi('Event');

type EventJson = z.infer<typeof EventSchema>;

/** What a lookup of an event id finds: the event, where a merged id now lives, or nothing. */
export type EventLookup =
  | { kind: 'found'; event: Omit<EventJson, 'strongest_signal' | 'members'> }
  | { kind: 'merged'; into: string }
  | { kind: 'missing' };

interface EventRow {
  id: string;
  merged_into: string | null;
  threat_layer: EventJson['threat_layer'];
  country_codes: string[];
  first_seen_at: Date | string;
  last_seen_at: Date | string;
  severity: number | null;
  publisher_count: number;
  signal_count: number;
}

/**
 * The event `id`, following merges to the live event in the same statement: `merged` names the
 * live event a merged id now belongs to. An event none of whose signals is served any more
 * (all retracted) is missing, like a retracted signal.
 */
export async function findEvent(db: Database, id: string): Promise<EventLookup> {
  const rows = await queryRows<EventRow & { hops: number }>(
    db,
    sql`WITH RECURSIVE chain(id, hops) AS (
          SELECT ${id}::uuid, 0
          UNION ALL
          SELECT e.merged_into, c.hops + 1 FROM chain c JOIN events e ON e.id = c.id
          WHERE e.merged_into IS NOT NULL AND c.hops < ${MAX_MERGE_HOPS}
        )
        SELECT e.id, e.merged_into, e.threat_layer, e.country_codes, e.first_seen_at, e.last_seen_at,
               e.publisher_count, e.signal_count, c.hops,
               (SELECT max(s.significance_score)::float8 FROM signals s
                WHERE s.event_id = e.id AND s.retracted_at IS NULL) AS severity
        FROM chain c JOIN events e ON e.id = c.id
        ORDER BY c.hops DESC LIMIT 1`,
  );
  const row = rows[0];
  if (!row || row.merged_into !== null) return { kind: 'missing' };
  if (row.hops > 0) return { kind: 'merged', into: row.id };
  if (row.severity === null) return { kind: 'missing' };
  return {
    kind: 'found',
    event: {
      id: row.id,
      threat_layer: row.threat_layer,
      country_codes: row.country_codes,
      first_reported_at: new Date(row.first_seen_at).toISOString(),
      last_reported_at: new Date(row.last_seen_at).toISOString(),
      severity: row.severity,
      corroboration: row.publisher_count,
      signal_count: row.signal_count,
    },
  };
}
