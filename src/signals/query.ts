import { and, asc, between, eq, gte, inArray, lte, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { boundStatement, compileStatement, runStatement, type Database, type Statement } from '../db/client';
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

/** How a filter value enters SQL: as itself, or as a named placeholder (see `signalPageStatement`). */
type Param = <T>(name: string, value: T) => T;
const asValue: Param = (_, value) => value;

/** The WHERE conditions for `filter`, each written to use an index of `signals`. */
export function signalConditions(filter: SignalFilter, param: Param = asValue): SQL | undefined {
  const { layers, bbox } = filter;
  const conditions: (SQL | undefined)[] = [
    layers?.length
      ? inArray(
          signals.threatLayer,
          layers.map((layer, i) => param(`layer${i}`, layer)),
        )
      : undefined,
    filter.minScore ? gte(signals.significanceScore, param('minScore', filter.minScore)) : undefined,
    filter.region ? eq(signals.region, param('region', filter.region)) : undefined,
    filter.country
      ? sql`${signals.countryCodes} @> ARRAY[${param('country', filter.country)}]::text[]`
      : undefined,
    filter.city ? sql`${signals.city} ILIKE ${param('city', `%${escapeLike(filter.city)}%`)}` : undefined,
    filter.start ? gte(signals.publishedAt, param('start', filter.start)) : undefined,
    filter.end ? lte(signals.publishedAt, param('end', filter.end)) : undefined,
    filter.search
      ? sql`${signals.search} @@ websearch_to_tsquery('english', ${param('search', filter.search)})`
      : undefined,
    filter.valence ? eq(signals.signalValence, param('valence', filter.valence)) : undefined,
    // Ranges, not a geometric operator: their estimates come from the columns' histograms, so
    // the planner walks the rank index for a large box and the (lat, lng) index for a small one.
    bbox ? between(signals.lat, param('minLat', bbox.minLat), param('maxLat', bbox.maxLat)) : undefined,
    bbox ? between(signals.lng, param('minLng', bbox.minLng), param('maxLng', bbox.maxLng)) : undefined,
    filter.anomaly === undefined ? undefined : eq(signals.isAnomaly, param('anomaly', filter.anomaly)),
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

type Page = { limit: number; offset: number };

/** Which rows of the rank order a statement reads: `fetch` of them from `offset`. */
type Window = { fetch: number | Placeholder; offset: number | Placeholder };

/** The rows of one window of the rank order, with their source. */
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

/** One page of signals in rank order; fetches `limit + 1` rows so callers can tell `has_more`. */
export async function listSignals(
  db: Database,
  filter: SignalFilter,
  page: { limit: number; offset: number },
): Promise<SignalRow[]> {
  return signalRowsQuery(db, filter, { fetch: page.limit + 1, offset: page.offset });
}

/** The columns of `signalRowsQuery` by position, in snake case (the join repeats `id`, `name`, `tier`). */
const rowNames = Object.keys(signalColumns)
  .map((key) => key.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`))
  .join(', ');

const isoTime = (column: string) =>
  sql.raw(`to_char(p.${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${column}`);

/**
 * One signal as a row whose JSON is exactly `signalJson`'s shape and key order (a test holds
 * the two equal on both backends); keep them in step when the schema changes. A row rather
 * than json_build_object: Postgres writes it compactly and builds it faster.
 */
const signalRecord = sql`(SELECT s FROM (SELECT p.id, p.threat_layer, p.significance_score, p.signal_valence,
  p.title, p.content_display, p.country_codes, p.region, p.city, p.lat, p.lng, p.language,
  ${isoTime('published_at')}, ${isoTime('collected_at')}, p.is_anomaly, p.source_url,
  (SELECT source FROM (SELECT p.source_id AS id, p.source_name AS name, p.source_tier AS tier) source) AS source) s)`;

/**
 * The page as one JSON array of at most `limit` signals, built by Postgres from the rows
 * `signalRowsQuery` reads (limit + 1 of them, in rank order, on the same indexes), plus how many
 * rows there were so the caller can tell `has_more`. `where` carries the filter's values.
 */
function signalPageQuery(db: Database, filter: SignalFilter, where: SQL | undefined) {
  const limit = sql.placeholder('limit');
  const window = { fetch: sql.placeholder('fetch'), offset: sql.placeholder('offset') };
  const rows = signalRowsQuery(db, filter, window, where);
  // The window numbers only the page's own rows, so the scan below still stops at limit + 1.
  return sql`SELECT coalesce(json_agg(${signalRecord} ORDER BY p.rank) FILTER (WHERE p.rank <= ${limit}), '[]')::text AS data,
      count(*)::int AS rows
    FROM (SELECT r.*, row_number() OVER (ORDER BY r.significance_score DESC, r.published_at DESC, r.id) AS rank
          FROM (${rows}) r(${sql.raw(rowNames)})) p`;
}

// Module level on purpose: compiled text only (no values), one per filter shape, and there are
// few shapes; the bound is a backstop.
const pageStatements = new Map<string, Statement>();
const MAX_PAGE_STATEMENTS = 1000;

/**
 * The statement of one JSON page, compiled once per filter shape (which filters are present)
 * and bound to this filter's values, so the hot path never rebuilds its SQL.
 */
export function signalPageStatement(db: Database, filter: SignalFilter, page: Page): Statement {
  const values: Record<string, unknown> = {};
  const where = signalConditions(filter, (name, value) => {
    // Sent as the driver receives it, without drizzle's column encoders: times as ISO text.
    values[name] = value instanceof Date ? value.toISOString() : value;
    return sql.placeholder(name) as never;
  });
  const shape = Object.keys(values).join(',');
  let statement = pageStatements.get(shape);
  if (!statement) {
    if (pageStatements.size >= MAX_PAGE_STATEMENTS) pageStatements.clear();
    statement = compileStatement(signalPageQuery(db, filter, where));
    pageStatements.set(shape, statement);
  }
  return boundStatement(statement, {
    ...values,
    limit: page.limit,
    fetch: page.limit + 1,
    offset: page.offset,
  });
}

/**
 * One page of signals as the JSON text of their array, serialised by Postgres: the hot path of
 * `/api/v1/signals`, which neither builds its SQL again nor parses rows into objects.
 */
export async function listSignalsJson(
  db: Database,
  filter: SignalFilter,
  page: Page,
): Promise<{ data: string; hasMore: boolean }> {
  const [result] = await runStatement<{ data: string; rows: number }>(
    db,
    signalPageStatement(db, filter, page),
    {},
  );
  return { data: result!.data, hasMore: result!.rows > page.limit };
}
