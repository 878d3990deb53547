import { and, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { boundStatement, compileStatement, runStatement, type Database, type Statement } from '../db/client';
import { CSV_COLUMNS } from './csv';
import { encodeCursor, signalListFingerprint } from './cursor';
import {
  orderOf,
  seekCondition,
  signalColumns,
  signalConditionValues,
  signalConditions,
  signalRowsQuery,
  type Page,
  type SignalFilter,
  type SignalOrderKind,
} from './query';

/**
 * Pages of signals written by Postgres: the hot path of /api/v1/signals and the export. The app
 * then neither builds the SQL again (one compiled statement per filter shape and format) nor
 * parses rows into objects to serialise them once more: Postgres reads the page's rows in rank
 * order (`signalRowsQuery`, on its indexes), and writes them as JSON or CSV text.
 */
export type PageFormat = 'json' | 'csv' | 'geojson';

/** The columns of `signalRowsQuery` by position, in snake case (the join repeats `id`, `name`, `tier`). */
const rowNames = Object.keys(signalColumns)
  .map((key) => key.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`))
  .join(', ');

/** A timestamp of page row `p` as `toISOString()` writes it (milliseconds, `Z`). */
const isoTime = (column: string) =>
  `to_char(p.${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * One signal as a row whose JSON is exactly `signalJson`'s shape and key order (a test holds
 * the two equal on both backends); keep them in step when the schema changes. A row rather
 * than json_build_object: Postgres writes it compactly and builds it faster.
 */
const jsonRecord =
  sql.raw(`(SELECT s FROM (SELECT p.id, p.threat_layer, p.significance_score, p.signal_valence,
  p.title, p.content_display, p.country_codes, p.region, p.city, p.lat, p.lng, p.language,
  ${isoTime('published_at')} AS published_at, ${isoTime('collected_at')} AS collected_at, p.is_anomaly,
  p.source_url, ${isoTime('updated_at')} AS updated_at, ${isoTime('retracted_at')} AS retracted_at,
  (SELECT source FROM (SELECT p.source_id AS id, p.source_name AS name,
  p.source_tier AS tier) source) AS source, p.event_id, p.corroboration) s)`);

/**
 * One signal as an RFC 7946 Feature: its id, a Point at [lng, lat] (null geometry without
 * both coordinates) and the signal's JSON as properties, so map libraries load it as is.
 */
const geoJsonFeature = sql`(SELECT f FROM (SELECT 'Feature' AS type, p.id,
  CASE WHEN p.lat IS NULL OR p.lng IS NULL THEN NULL
       ELSE json_build_object('type', 'Point', 'coordinates', json_build_array(p.lng, p.lat)) END AS geometry,
  ${jsonRecord} AS properties) f)`;

/**
 * Text a spreadsheet would run as a formula (`= + - @` first) gets a leading `'`; a field with
 * a quote, comma or line break is quoted with its quotes doubled (RFC 4180); null is empty.
 */
const csvText = (column: string) => {
  const guarded = `CASE WHEN left(p.${column}, 1) IN ('=', '+', '-', '@') THEN '''' || p.${column} ELSE coalesce(p.${column}, '') END`;
  return `CASE WHEN p.${column} ~ '[",\\r\\n]' THEN '"' || replace(${guarded}, '"', '""') || '"' ELSE ${guarded} END`;
};

/** How each CSV column is written: text is guarded and quoted; the rest cannot need quoting. */
const CSV_FIELDS: Record<(typeof CSV_COLUMNS)[number], string> = {
  id: 'p.id::text',
  threat_layer: 'p.threat_layer',
  significance_score: 'p.significance_score::text',
  signal_valence: 'p.signal_valence',
  title: csvText('title'),
  content_display: csvText('content_display'),
  country_codes: `array_to_string(p.country_codes, ';')`,
  region: csvText('region'),
  city: csvText('city'),
  lat: `coalesce(p.lat::text, '')`,
  lng: `coalesce(p.lng::text, '')`,
  language: csvText('language'),
  published_at: isoTime('published_at'),
  collected_at: isoTime('collected_at'),
  is_anomaly: 'p.is_anomaly::text',
  source_url: csvText('source_url'),
  source_id: 'p.source_id::text',
  source_name: csvText('source_name'),
  source_tier: 'p.source_tier',
  updated_at: isoTime('updated_at'),
  retracted_at: `coalesce(${isoTime('retracted_at')}, '')`,
  event_id: 'p.event_id::text',
  corroboration: 'p.corroboration::text',
};

/** One signal as a CSV record (no line end), its fields in `CSV_COLUMNS` order. */
const csvRecord = sql.raw(CSV_COLUMNS.map((column) => CSV_FIELDS[column]).join(` || ',' || `));

/** Each format's aggregate over the page rows `p`, in rank order, of at most `limit` rows. */
const AGGREGATES: Record<PageFormat, (limit: Placeholder) => SQL> = {
  json: (limit) =>
    sql`coalesce(json_agg(${jsonRecord} ORDER BY p.rank) FILTER (WHERE p.rank <= ${limit}), '[]')::text`,
  csv: (limit) =>
    sql`coalesce(string_agg(${csvRecord}, E'\\r\\n' ORDER BY p.rank) FILTER (WHERE p.rank <= ${limit}), '')`,
  geojson: (limit) =>
    sql`coalesce(json_agg(${geoJsonFeature} ORDER BY p.rank) FILTER (WHERE p.rank <= ${limit}), '[]')::text`,
};

/** How page rows `r` are numbered, and the sort key of row `p` as JSON, per order. */
const ORDERS: Record<SignalOrderKind, { rank: string; key: string }> = {
  rank: {
    rank: 'r.significance_score DESC, r.published_at DESC, r.id',
    key: 'json_build_array(p.significance_score, p.published_at, p.id)::text',
  },
  sync: { rank: 'r.updated_at, r.id', key: 'json_build_array(p.updated_at, p.id)::text' },
};

/**
 * The page as one text of at most `limit` signals, plus how many rows there were (up to
 * limit + 1) so the caller can tell `has_more`, and the sort key of the page's last row when
 * there are more (the next cursor). `where` carries the filter's values and the seek.
 */
function pageQuery(db: Database, filter: SignalFilter, where: SQL | undefined, format: PageFormat) {
  const window = { fetch: sql.placeholder('fetch'), offset: sql.placeholder('offset') };
  const rows = signalRowsQuery(db, filter, window, where);
  const order = ORDERS[orderOf(filter)];
  const limit = sql.placeholder('limit');
  // The window function numbers only the page's own rows, so the scan still stops at limit + 1.
  return sql`SELECT ${AGGREGATES[format](limit)} AS data, count(*)::int AS rows,
      min(${sql.raw(order.key)}) FILTER (WHERE p.rank = ${limit}) AS last
    FROM (SELECT r.*, row_number() OVER (ORDER BY ${sql.raw(order.rank)}) AS rank
          FROM (${rows}) r(${sql.raw(rowNames)})) p`;
}

// Module level on purpose: compiled text only (no values), one per filter shape and format, and
// there are few shapes; the bound is a backstop.
const statements = new Map<string, Statement>();
const MAX_STATEMENTS = 1000;

/** A filter value as the driver receives it, without drizzle's column encoders: times as ISO text. */
const driverValue = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/**
 * The WHERE of `filter`'s page with named placeholders, checking that it binds exactly `values`
 * (`signalConditionValues`, which hot reads use instead of building it).
 */
function placeholderWhere(filter: SignalFilter, page: Page, values: Record<string, unknown>) {
  const bound: Record<string, unknown> = {};
  const param = <T>(name: string, value: T): T => {
    bound[name] = driverValue(value);
    return sql.placeholder(name) as never;
  };
  const conditions = signalConditions(filter, param);
  const where = page.after ? and(conditions, seekCondition(page.after, param)) : conditions;
  const names = Object.keys(bound);
  if (names.join() !== Object.keys(values).join() || names.some((name) => bound[name] !== values[name])) {
    throw new Error(`signalConditionValues disagrees with signalConditions: ${names.join()}`);
  }
  return where;
}

/**
 * The statement of one page, compiled once per filter shape (which filters are present) and
 * format, and bound to this filter's values and page. Its values are read from the filter
 * directly: building the conditions only to collect them was a good part of the app's own
 * work on every /signals request.
 */
export function signalPageStatement(
  db: Database,
  filter: SignalFilter,
  page: Page,
  format: PageFormat,
): Statement {
  const values = signalConditionValues(filter, page.after);
  for (const name in values) values[name] = driverValue(values[name]);
  const shape = `${format}:${orderOf(filter)}:${filter.distinct ?? 'all'}:${Object.keys(values).join(',')}`;
  let statement = statements.get(shape);
  if (!statement) {
    if (statements.size >= MAX_STATEMENTS) statements.clear();
    statement = compileStatement(pageQuery(db, filter, placeholderWhere(filter, page, values), format));
    statements.set(shape, statement);
  }
  values.limit = page.limit;
  values.fetch = page.limit + 1;
  values.offset = page.offset;
  return boundStatement(statement, values);
}

/**
 * One page of signals as text written by Postgres: a JSON array of signals, CSV records (CRLF
 * between them, no header) or a JSON array of GeoJSON Features. `count` is how many signals it
 * holds; `nextCursor` starts the page after it (null on the last page).
 */
export async function listSignalPage(
  db: Database,
  filter: SignalFilter,
  page: Page,
  format: PageFormat,
): Promise<{ data: string; count: number; hasMore: boolean; nextCursor: string | null }> {
  const [result] = await runStatement<{ data: string; rows: number; last: string | null }>(
    db,
    signalPageStatement(db, filter, page, format),
  );
  const { data, rows, last } = result!;
  const hasMore = rows > page.limit;
  return {
    data,
    count: Math.min(rows, page.limit),
    hasMore,
    nextCursor: hasMore && last ? encodeCursor(signalListFingerprint(filter), last) : null,
  };
}
