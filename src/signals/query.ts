import { and, asc, eq, gte, inArray, lte, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client';
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
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (ch) => `\\${ch}`);

/** The WHERE conditions for `filter`, each written to use an index of `signals`. */
export function signalConditions(filter: SignalFilter): SQL | undefined {
  const conditions: (SQL | undefined)[] = [
    filter.layers?.length ? inArray(signals.threatLayer, filter.layers) : undefined,
    filter.minScore ? gte(signals.significanceScore, filter.minScore) : undefined,
    filter.region ? eq(signals.region, filter.region) : undefined,
    filter.country ? sql`${signals.countryCodes} @> ARRAY[${filter.country}]::text[]` : undefined,
    filter.city ? sql`${signals.city} ILIKE ${`%${escapeLike(filter.city)}%`}` : undefined,
    filter.start ? gte(signals.publishedAt, filter.start) : undefined,
    filter.end ? lte(signals.publishedAt, filter.end) : undefined,
    filter.search ? sql`${signals.search} @@ websearch_to_tsquery('english', ${filter.search})` : undefined,
    filter.valence ? eq(signals.signalValence, filter.valence) : undefined,
    filter.bbox
      ? sql`point(${signals.lng}, ${signals.lat}) <@ box(point(${filter.bbox.minLng}, ${filter.bbox.minLat}), point(${filter.bbox.maxLng}, ${filter.bbox.maxLat}))`
      : undefined,
    filter.anomaly === undefined ? undefined : eq(signals.isAnomaly, filter.anomaly),
  ];
  return and(...conditions.filter(Boolean));
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

/**
 * The rank order to use for `filter`. With a full-text search the same order is written so the
 * rank index cannot serve it: matches are usually few and clustered low in the rank (a walk of
 * the rank index filtering on the tsvector read 480,000 rows for one word on 1M signals, 7 s),
 * while collecting them through the GIN index and sorting is bounded by the number of matches.
 */
export function signalOrderFor(filter: SignalFilter) {
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
  sourceId: sources.id,
  sourceName: sources.name,
  sourceTier: sources.tier,
};

export type SignalRow = {
  id: string;
  threatLayer: string;
  significanceScore: number;
  signalValence: string;
  title: string;
  contentDisplay: string;
  countryCodes: string[];
  region: string | null;
  city: string | null;
  lat: number | null;
  lng: number | null;
  language: string | null;
  publishedAt: Date;
  collectedAt: Date;
  ingestedAt: Date;
  isAnomaly: boolean;
  sourceUrl: string;
  sourceId: string;
  sourceName: string;
  sourceTier: string;
};

/** The statement behind `listSignals`: `limit + 1` rows in rank order, so callers can tell `has_more`. */
export const signalRowsQuery = (
  db: Database,
  filter: SignalFilter,
  page: { limit: number; offset: number },
) =>
  db
    .select(signalColumns)
    .from(signals)
    .innerJoin(sources, eq(sources.id, signals.sourceId))
    .where(signalConditions(filter))
    .orderBy(...signalOrderFor(filter))
    .limit(page.limit + 1)
    .offset(page.offset);

/** One page of signals in rank order; fetches `limit + 1` rows so callers can tell `has_more`. */
export async function listSignals(
  db: Database,
  filter: SignalFilter,
  page: { limit: number; offset: number },
): Promise<SignalRow[]> {
  return signalRowsQuery(db, filter, page);
}

/** The columns of `signalRowsQuery` by position, in snake case (the join repeats `id`, `name`, `tier`). */
const rowNames = Object.keys(signalColumns)
  .map((key) => key.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`))
  .join(', ');

const isoTime = (column: string) =>
  sql.raw(`to_char(p.${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

/**
 * One signal as JSON, built by Postgres in exactly the shape and key order of `signalJson`
 * (a test holds the two equal on both backends). Keep them in step when the schema changes.
 */
const signalObject = sql`json_build_object(
  'id', p.id, 'threat_layer', p.threat_layer, 'significance_score', p.significance_score,
  'signal_valence', p.signal_valence, 'title', p.title, 'content_display', p.content_display,
  'country_codes', p.country_codes, 'region', p.region, 'city', p.city, 'lat', p.lat, 'lng', p.lng,
  'language', p.language, 'published_at', ${isoTime('published_at')},
  'collected_at', ${isoTime('collected_at')}, 'is_anomaly', p.is_anomaly, 'source_url', p.source_url,
  'source', json_build_object('id', p.source_id, 'name', p.source_name, 'tier', p.source_tier))`;

/**
 * The statement behind `listSignalsJson`: the rows `listSignals` reads (limit + 1 of them, in
 * rank order, on the same indexes), turned into one JSON array of at most `limit` signals by
 * Postgres, plus how many rows there were so the caller can tell `has_more`.
 */
export function signalPageQuery(db: Database, filter: SignalFilter, page: { limit: number; offset: number }) {
  // The window numbers only the page's own rows, so the scan below still stops at limit + 1.
  return sql`SELECT coalesce(json_agg(${signalObject} ORDER BY p.rank) FILTER (WHERE p.rank <= ${page.limit}), '[]')::text AS data,
      count(*)::int AS rows
    FROM (SELECT r.*, row_number() OVER (ORDER BY r.significance_score DESC, r.published_at DESC, r.id) AS rank
          FROM (${signalRowsQuery(db, filter, page)}) r(${sql.raw(rowNames)})) p`;
}

/**
 * One page of signals as the JSON text of their array, serialised by Postgres: the hot path of
 * `/api/v1/signals`, which then neither parses rows into objects nor stringifies them again.
 */
export async function listSignalsJson(
  db: Database,
  filter: SignalFilter,
  page: { limit: number; offset: number },
): Promise<{ data: string; hasMore: boolean }> {
  const [result] = await queryRows<{ data: string; rows: number }>(db, signalPageQuery(db, filter, page));
  return { data: result!.data, hasMore: result!.rows > page.limit };
}
