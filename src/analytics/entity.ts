import { sql } from 'drizzle-orm';
import { queryRows, type Database, type SqlRow } from '../db/client';
import type { signals } from '../db/schema';
import { CursorError, encodeCursor, fingerprint, isPgTime, isUuid, readCursor } from '../signals/cursor';
import { DAY_MS, iso, windowOf } from './sql';

const ENTITY_GRAPH = { maxNodes: 20 } as const;

interface MatchRow {
  id: string;
  name: string;
  type: string;
}

/** A page row: the signal's columns, its mentions of the entity, the total and its seek key. */
type SignalRow = SqlRow<
  typeof signals,
  | 'id'
  | 'threatLayer'
  | 'significanceScore'
  | 'signalValence'
  | 'title'
  | 'countryCodes'
  | 'publishedAt'
  | 'sourceUrl'
> & { mentions: number; total: number; key: string };

interface CountRow {
  kind: 'layer' | 'day' | 'node' | 'edge';
  a: string;
  b: string | null;
  n: number;
}

/**
 * The entity view: every entity whose normalized name equals `name` (any type), the signals
 * mentioning it in the last `days` (newest first), and, over the same signals, the layer
 * breakdown, a zero-filled daily timeline (UTC days) and the co-mention graph: the 20 entities
 * most often in the same signals, with an edge per pair weighted by the signals naming both.
 * Null when no entity has that name.
 */
export async function entityView(
  db: Database,
  now: Date,
  q: { name: string; days: number; limit: number; offset: number; cursor?: string },
) {
  // The list a cursor belongs to: the entity and lookback (the window itself slides with time).
  const list = fingerprint(['entity', q.name.trim().toLowerCase(), q.days]);
  const after = q.cursor === undefined ? undefined : entitySeekKey(q.cursor, list);
  const matches = await queryRows<MatchRow>(
    db,
    sql`SELECT id, name, type FROM entities WHERE normalized = ${q.name.trim().toLowerCase()} ORDER BY type`,
  );
  if (matches.length === 0) return null;
  const ids = matches.map((m) => m.id);
  const idList = sql.join(
    ids.map((id) => sql`${id}::uuid`),
    sql`, `,
  );
  const start = new Date(now.getTime() - q.days * DAY_MS);
  const [s, e] = [start.toISOString(), now.toISOString()];
  const scope = sql`SELECT se.signal_id, sum(se.mentions)::int AS mentions FROM signal_entities se
      JOIN signals sg ON sg.id = se.signal_id
      WHERE se.entity_id IN (${idList}) AND sg.published_at > ${s}::timestamptz AND sg.published_at <= ${e}::timestamptz
        AND sg.retracted_at IS NULL
      GROUP BY se.signal_id`;
  // Newest first, then id: after a cursor, only rows later in that order.
  const seek = after
    ? sql`WHERE x.published_at < ${after.publishedAt}::timestamptz
            OR (x.published_at = ${after.publishedAt}::timestamptz AND x.id > ${after.id}::uuid)`
    : sql``;

  // Sequential on purpose: one connection per request is what a Worker's Neon pool should hold.
  // The total is counted before the seek, so a cursor page reports the same total as the first.
  const page = await queryRows<SignalRow>(
    db,
    sql`WITH m AS (${scope})
          SELECT * FROM (
            SELECT sg.id, sg.threat_layer, sg.significance_score::float8 AS significance_score, sg.signal_valence,
                   sg.title, sg.country_codes, sg.published_at, sg.source_url, m.mentions,
                   count(*) OVER ()::int AS total, json_build_array(sg.published_at, sg.id)::text AS key
            FROM m JOIN signals sg ON sg.id = m.signal_id) x
          ${seek}
          ORDER BY x.published_at DESC, x.id
          LIMIT ${q.limit + 1} OFFSET ${q.offset}`,
  );
  const counts = await queryRows<CountRow>(
    db,
    sql`WITH m AS (${scope}),
          co AS (SELECT se.signal_id, se.entity_id FROM signal_entities se JOIN m ON m.signal_id = se.signal_id
                 WHERE se.entity_id NOT IN (${idList})),
          top AS (SELECT entity_id, count(*)::int AS n FROM co GROUP BY entity_id
                  ORDER BY count(*) DESC, entity_id LIMIT ${ENTITY_GRAPH.maxNodes})
          SELECT 'layer' AS kind, sg.threat_layer AS a, NULL AS b, count(*)::int AS n
            FROM m JOIN signals sg ON sg.id = m.signal_id GROUP BY sg.threat_layer
          UNION ALL
          SELECT 'day', to_char(date_trunc('day', sg.published_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD'), NULL, count(*)::int
            FROM m JOIN signals sg ON sg.id = m.signal_id GROUP BY 2
          UNION ALL
          SELECT 'node', e.name, e.type, top.n FROM top JOIN entities e ON e.id = top.entity_id
          UNION ALL
          SELECT 'edge', ea.name || '|' || ea.type, eb.name || '|' || eb.type, count(*)::int
            FROM co x JOIN co y ON x.signal_id = y.signal_id AND x.entity_id < y.entity_id
            JOIN top ta ON ta.entity_id = x.entity_id JOIN top tb ON tb.entity_id = y.entity_id
            JOIN entities ea ON ea.id = x.entity_id JOIN entities eb ON eb.id = y.entity_id
            GROUP BY 2, 3`,
  );

  const total = page[0]?.total ?? (q.offset > 0 || after ? await countOnly(db, scope) : 0);
  const center = matches[0]!;
  const nodeId = (name: string, type: string) => `${type}:${name.toLowerCase()}`;
  const nodes = counts.filter((c) => c.kind === 'node');
  const dayCounts = new Map(counts.filter((c) => c.kind === 'day').map((c) => [c.a, c.n]));
  const firstDay = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate());
  const timeline = [];
  for (let t = firstDay; t <= now.getTime(); t += DAY_MS) {
    const date = new Date(t).toISOString().slice(0, 10);
    timeline.push({ date, signal_count: dayCounts.get(date) ?? 0 });
  }
  return {
    entity: { name: center.name, types: matches.map((m) => m.type) },
    window: windowOf(start, now),
    total_signals: total,
    layers: counts
      .filter((c) => c.kind === 'layer')
      .map((c) => ({ threat_layer: c.a, signal_count: c.n }))
      .sort((a, b) => b.signal_count - a.signal_count || a.threat_layer.localeCompare(b.threat_layer)),
    timeline,
    graph: {
      nodes: [
        { id: nodeId(center.name, center.type), name: center.name, type: center.type, signal_count: total },
        ...nodes
          .map((n) => ({ id: nodeId(n.a, n.b!), name: n.a, type: n.b!, signal_count: n.n }))
          .sort((a, b) => b.signal_count - a.signal_count || a.id.localeCompare(b.id)),
      ],
      edges: [
        ...nodes.map((n) => ({
          source: nodeId(center.name, center.type),
          target: nodeId(n.a, n.b!),
          weight: n.n,
        })),
        ...counts
          .filter((c) => c.kind === 'edge')
          .map((c) => {
            const [an, at] = c.a.split('|') as [string, string];
            const [bn, bt] = c.b!.split('|') as [string, string];
            return { source: nodeId(an, at), target: nodeId(bn, bt), weight: c.n };
          }),
      ].sort(
        (a, b) => b.weight - a.weight || a.source.localeCompare(b.source) || a.target.localeCompare(b.target),
      ),
    },
    signals: page.slice(0, q.limit).map((r) => ({
      id: r.id,
      threat_layer: r.threat_layer,
      significance_score: r.significance_score,
      signal_valence: r.signal_valence,
      title: r.title,
      country_codes: r.country_codes,
      published_at: iso(r.published_at)!,
      source_url: r.source_url,
      mentions: r.mentions,
    })),
    hasMore: page.length > q.limit,
    nextCursor: page.length > q.limit ? encodeCursor(list, page[q.limit - 1]!.key) : null,
  };
}

/** Where the page after `cursor` starts in the entity list `list`. */
function entitySeekKey(cursor: string, list: string): { publishedAt: string; id: string } {
  const key = readCursor(cursor, list);
  const [publishedAt, id] = key;
  if (key.length === 2 && isPgTime(publishedAt) && isUuid(id)) return { publishedAt, id };
  throw new CursorError('is not a cursor this API wrote; pass pagination.next_cursor as it came');
}

/** The total when the requested page is past the end (no row carries the window count). */
async function countOnly(db: Database, scope: ReturnType<typeof sql>): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM (${scope}) m`);
  return row?.n ?? 0;
}
