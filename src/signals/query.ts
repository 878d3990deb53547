import {
  and,
  asc,
  between,
  eq,
  gte,
  inArray,
  isNull,
  lte,
  sql,
  type GetColumnData,
  type Placeholder,
  type SQL,
} from 'drizzle-orm';
import type { Database } from '../db/client';
import { alias } from 'drizzle-orm/pg-core';
import { signals, sources } from '../db/schema';
import type { Layer, Region, Valence } from '../vocab';

/** The filters of /api/v1/signals; feeds, export and webhooks use subsets of them. */
export interface SignalFilter {
  layers?: Layer[];
  minScore?: number;
  region?: Region;
  country?: string;
  city?: string;
  start?: Date;
  end?: Date;
  search?: string;
  valence?: Valence;
  bbox?: { minLat: number; minLng: number; maxLat: number; maxLng: number };
  anomaly?: boolean;
  /**
   * Sync: only signals changed at or after this time, in `updated_at` order, retracted ones
   * included (the only read that serves them).
   */
  updatedSince?: Date;
  /**
   * `event`: one signal per event, the strongest of the event's signals that match the other
   * filters (the first of them in the list's order), so no event appears twice in a list.
   */
  distinct?: 'event';
  /** Only the signals of one event (an event's member list). */
  eventId?: string;
}

/** Which order a read walks: the rank (score, newest, id) or, for sync, change time then id. */
export type SignalOrderKind = 'rank' | 'sync';

export const orderOf = (filter: SignalFilter): SignalOrderKind => (filter.updatedSince ? 'sync' : 'rank');

/**
 * Where a keyset page starts: the sort key of the last row of the previous page, exactly as
 * Postgres wrote it (timestamps keep their microseconds, which a JS Date would lose).
 */
export type SeekKey =
  | { order: 'rank'; score: number; publishedAt: string; id: string }
  | { order: 'sync'; updatedAt: string; id: string };

/**
 * True when every alternative of a websearch query (`a OR b`) has a term it must contain. A
 * query of exclusions alone (`-zzzz`, or `-zzzz OR x`) matches nearly every signal and cannot
 * be answered from the search index: it reads the whole index and sorts what it finds.
 */
export function searchHasPositiveTerm(search: string): boolean {
  const tokens = search.match(/-?"[^"]*"?|[^\s"]+/g) ?? [];
  const branches: string[][] = [[]];
  for (const token of tokens) {
    if (token.toLowerCase() === 'or') branches.push([]);
    else branches[branches.length - 1]!.push(token);
  }
  // An empty alternative (`a OR`) is dropped by Postgres, and an empty query matches nothing.
  return branches
    .filter((branch) => branch.length > 0)
    .every((branch) => branch.some((token) => !token.startsWith('-') && /[\p{L}\p{N}]/u.test(token)));
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (ch) => `\\${ch}`);

/** How a filter value enters SQL: as itself, or as a named placeholder (see signals/page.ts). */
export type Param = <T>(name: string, value: T) => T;
const asValue: Param = (_, value) => value;

type SignalsTable = typeof signals;

/** Another reference to `signals`, for comparing a signal with the other members of its event. */
const member = alias(signals, 'member');

/**
 * `distinct=event`: the signal is the strongest of its event among the signals the other
 * filters select, i.e. no other member that matches them comes before it in the rank order
 * (score desc, newest, id). Filters first, then one per event, so the signal kept is the
 * strongest *matching* one, not the event's overall lead. Each candidate costs one probe of
 * `signals_event_idx` (its event's members), so a page still reads only as far as it needs.
 * Written as NOT EXISTS, so the planner sees an anti-join it can estimate: a nested loop over
 * the rank index probing `signals_event_idx` (EXPLAIN on 1M signals). A scalar subquery
 * (`(SELECT … LIMIT 1) IS NULL`) ran the same probes but was estimated at 0.5% selectivity, so
 * the plan's cost passed Postgres' JIT thresholds and every page spent 0.5–5 s compiling.
 */
export function strongestOfEvent(filter: SignalFilter, param: Param = asValue): SQL {
  const others = signalConditions(
    { ...filter, distinct: undefined },
    param,
    member as unknown as SignalsTable,
  );
  const before = sql`(${member.significanceScore}, ${member.publishedAt}) > (${signals.significanceScore}, ${signals.publishedAt})
    OR ((${member.significanceScore}, ${member.publishedAt}) = (${signals.significanceScore}, ${signals.publishedAt})
        AND ${member.id} < ${signals.id})`;
  return sql`NOT EXISTS (SELECT 1 FROM ${signals} AS ${sql.identifier('member')} WHERE ${member.eventId} = ${signals.eventId}
      AND (${before}) ${others ? sql`AND ${others}` : sql``})`;
}

/**
 * The WHERE conditions for `filter`, each written to use an index of `signals`. Retracted
 * signals are left out of every read but sync (`updatedSince`).
 */
export function signalConditions(
  filter: SignalFilter,
  param: Param = asValue,
  t: SignalsTable = signals,
): SQL | undefined {
  const { layers, bbox } = filter;
  const conditions: (SQL | undefined)[] = [
    filter.updatedSince
      ? gte(t.updatedAt, param('updatedSince', filter.updatedSince))
      : isNull(t.retractedAt),
    layers?.length
      ? inArray(
          t.threatLayer,
          layers.map((layer, i) => param(`layer${i}`, layer)),
        )
      : undefined,
    filter.minScore ? gte(t.significanceScore, param('minScore', filter.minScore)) : undefined,
    filter.region ? eq(t.region, param('region', filter.region)) : undefined,
    filter.country ? sql`${t.countryCodes} @> ARRAY[${param('country', filter.country)}]::text[]` : undefined,
    filter.city ? sql`${t.city} ILIKE ${param('city', `%${escapeLike(filter.city)}%`)}` : undefined,
    filter.start ? gte(t.publishedAt, param('start', filter.start)) : undefined,
    filter.end ? lte(t.publishedAt, param('end', filter.end)) : undefined,
    // The second half is a backstop for what searchHasPositiveTerm cannot see (`the -zzzz`:
    // a stop word is no term): a query with no indexable part ('T') would read the whole
    // search index. It holds no column, so the planner folds it away or into a one-time filter.
    filter.search
      ? sql`${t.search} @@ websearch_to_tsquery('english', ${param('search', filter.search)})
          AND querytree(websearch_to_tsquery('english', ${param('search', filter.search)})) <> 'T'`
      : undefined,
    filter.valence ? eq(t.signalValence, param('valence', filter.valence)) : undefined,
    // Ranges, not a geometric operator: their estimates come from the columns' histograms, so
    // the planner walks the rank index for a large box and the (lat, lng) index for a small one.
    bbox ? between(t.lat, param('minLat', bbox.minLat), param('maxLat', bbox.maxLat)) : undefined,
    bbox ? between(t.lng, param('minLng', bbox.minLng), param('maxLng', bbox.maxLng)) : undefined,
    filter.anomaly === undefined ? undefined : eq(t.isAnomaly, param('anomaly', filter.anomaly)),
    filter.eventId ? eq(t.eventId, param('eventId', filter.eventId)) : undefined,
    filter.distinct === 'event' ? strongestOfEvent(filter, param) : undefined,
  ];
  return and(...conditions.filter(Boolean));
}

/**
 * The values `signalConditions(filter, param)` (and `seekCondition(after, param)`) bind, by
 * placeholder name, without building their SQL: a hot read whose statement is already compiled
 * needs only these. It follows the same rules for which filters count (a `minScore` of 0 or an
 * empty `layers` binds nothing); `signalPageStatement` compares the two whenever it compiles
 * a statement, so they cannot drift apart unnoticed.
 */
export function signalConditionValues(filter: SignalFilter, after?: SeekKey): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const { layers, bbox } = filter;
  if (filter.updatedSince) values.updatedSince = filter.updatedSince;
  if (layers?.length) for (let i = 0; i < layers.length; i++) values[`layer${i}`] = layers[i];
  if (filter.minScore) values.minScore = filter.minScore;
  if (filter.region) values.region = filter.region;
  if (filter.country) values.country = filter.country;
  if (filter.city) values.city = `%${escapeLike(filter.city)}%`;
  if (filter.start) values.start = filter.start;
  if (filter.end) values.end = filter.end;
  if (filter.search) values.search = filter.search;
  if (filter.valence) values.valence = filter.valence;
  if (bbox) {
    values.minLat = bbox.minLat;
    values.maxLat = bbox.maxLat;
    values.minLng = bbox.minLng;
    values.maxLng = bbox.maxLng;
  }
  if (filter.anomaly !== undefined) values.anomaly = filter.anomaly;
  if (filter.eventId) values.eventId = filter.eventId;
  if (after?.order === 'sync') {
    values.afterUpdatedAt = after.updatedAt;
    values.afterId = after.id;
  } else if (after) {
    values.afterScore = after.score;
    values.afterPublishedAt = after.publishedAt;
    values.afterId = after.id;
  }
  return values;
}

/**
 * The rows after `key` in its order. Rank order is score desc, time desc, id asc: the pair
 * (score, time) is compared as a row, which the rank indexes serve as an index condition (both
 * columns descend), and id, which ascends, only breaks ties of that pair in a filter. Sync
 * order (updated_at, id) ascends throughout, so one row comparison on `signals_sync_idx` does.
 */
export function seekCondition(key: SeekKey, param: Param = asValue): SQL {
  if (key.order === 'sync') {
    return sql`(${signals.updatedAt}, ${signals.id}) > (${param('afterUpdatedAt', key.updatedAt)}::timestamptz, ${param('afterId', key.id)}::uuid)`;
  }
  const pair = sql`(${signals.significanceScore}, ${signals.publishedAt})`;
  const after = sql`(${param('afterScore', key.score)}::float8, ${param('afterPublishedAt', key.publishedAt)}::timestamptz)`;
  return sql`${pair} <= ${after} AND (${pair} < ${after} OR ${signals.id} > ${param('afterId', key.id)}::uuid)`;
}

/**
 * Score desc, then newest, then id: a total order, so pages never overlap or skip.
 * NULLS LAST matches the rank indexes drizzle creates (`.desc()` there means DESC NULLS LAST);
 * plain DESC means NULLS FIRST, which the planner cannot serve from them (both columns are
 * NOT NULL, so the order is the same). Without it every page sorts the whole table.
 */
export const signalOrder = [
  sql`${signals.significanceScore} DESC NULLS LAST`,
  sql`${signals.publishedAt} DESC NULLS LAST`,
  asc(signals.id),
] as const;

/** Sync order: oldest change first, then id, as `signals_sync_idx` holds them. */
export const syncOrder = [asc(signals.updatedAt), asc(signals.id)] as const;

/**
 * The rank order to use for `filter`. With a full-text search the same order is written so the
 * rank index cannot serve it: matches are usually few and clustered low in the rank (a walk of
 * the rank index filtering on the tsvector read 480,000 rows for one word on 1M signals, 7 s),
 * while collecting them through the GIN index and sorting is bounded by the number of matches.
 */
function signalOrderFor(filter: SignalFilter) {
  if (filter.updatedSince) return syncOrder;
  if (!filter.search) return signalOrder;
  return [
    sql`${signals.significanceScore} + 0 DESC`,
    sql`${signals.publishedAt} DESC`,
    asc(signals.id),
  ] as const;
}

export const signalColumns = {
  id: signals.id,
  threatLayer: signals.threatLayer,
  significanceScore: signals.significanceScore,
  signalValence: signals.signalValence,
  title: signals.title,
  contentDisplay: signals.contentDisplay,
  countryCodes: signals.countryCodes,
  region: signals.region,
  city: signals.city,
  lat: signals.lat,
  lng: signals.lng,
  language: signals.language,
  publishedAt: signals.publishedAt,
  collectedAt: signals.collectedAt,
  ingestedAt: signals.ingestedAt,
  isAnomaly: signals.isAnomaly,
  sourceUrl: signals.sourceUrl,
  updatedAt: signals.updatedAt,
  retractedAt: signals.retractedAt,
  eventId: signals.eventId,
  corroboration: signals.corroboration,
  sourceId: sources.id,
  sourceName: sources.name,
  sourceTier: sources.tier,
};

/** One row of `signalColumns`: each field typed by its column in the drizzle schema. */
export type SignalRow = { [K in keyof typeof signalColumns]: GetColumnData<(typeof signalColumns)[K]> };

/** A page: `limit` rows from `offset`, or (keyset) the `limit` rows after `after`. */
export type Page = { limit: number; offset: number; after?: SeekKey };

/** Which rows of the rank order a statement reads: `fetch` of them from `offset`. */
export type Window = { fetch: number | Placeholder; offset: number | Placeholder };

/** The rows of one window of the filter's order, with their source. */
export const signalRowsQuery = (
  db: Database,
  filter: SignalFilter,
  window: Window,
  where: SQL | undefined = signalConditions(filter),
) =>
  db
    .select(signalColumns)
    .from(signals)
    .innerJoin(sources, eq(sources.id, signals.sourceId))
    .where(where)
    .orderBy(...signalOrderFor(filter))
    .limit(window.fetch)
    .offset(window.offset);
