import { sql, type Placeholder, type SQL } from 'drizzle-orm';
import { boundStatement, compileStatement, runStatement, type Database, type Statement } from '../db/client';
import { CSV_COLUMNS } from './csv';
import { signalColumns, signalConditions, signalRowsQuery, type Page, type SignalFilter } from './query';

/**
 * Pages of signals written by Postgres: the hot path of /api/v1/signals and the export. The app
 * then neither builds the SQL again (one compiled statement per filter shape and format) nor
 * parses rows into objects to serialise them once more: Postgres reads the page's rows in rank
 * order (`signalRowsQuery`, on its indexes), and writes them as JSON or CSV text.
 */
export type PageFormat = 'json' | 'csv';

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
  p.source_url, (SELECT source FROM (SELECT p.source_id AS id, p.source_name AS name,
  p.source_tier AS tier) source) AS source) s)`);

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
};

/** One signal as a CSV record (no line end), its fields in `CSV_COLUMNS` order. */
const csvRecord = sql.raw(CSV_COLUMNS.map((column) => CSV_FIELDS[column]).join(` || ',' || `));

/** Each format's aggregate over the page rows `p`, in rank order, of at most `limit` rows. */
const AGGREGATES: Record<PageFormat, (limit: Placeholder) => SQL> = {
  json: (limit) =>
    sql`coalesce(json_agg(${jsonRecord} ORDER BY p.rank) FILTER (WHERE p.rank <= ${limit}), '[]')::text`,
  csv: (limit) =>
    sql`coalesce(string_agg(${csvRecord}, E'\\r\\n' ORDER BY p.rank) FILTER (WHERE p.rank <= ${limit}), '')`,
};

/**
 * The page as one text of at most `limit` signals, plus how many rows there were (up to
 * limit + 1) so the caller can tell `has_more`. `where` carries the filter's values.
 */
function pageQuery(db: Database, filter: SignalFilter, where: SQL | undefined, format: PageFormat) {
  const window = { fetch: sql.placeholder('fetch'), offset: sql.placeholder('offset') };
  const rows = signalRowsQuery(db, filter, window, where);
  // The window function numbers only the page's own rows, so the scan still stops at limit + 1.
  return sql`SELECT ${AGGREGATES[format](sql.placeholder('limit'))} AS data, count(*)::int AS rows
    FROM (SELECT r.*, row_number() OVER (ORDER BY r.significance_score DESC, r.published_at DESC, r.id) AS rank
          FROM (${rows}) r(${sql.raw(rowNames)})) p`;
}

// Module level on purpose: compiled text only (no values), one per filter shape and format, and
// there are few shapes; the bound is a backstop.
const statements = new Map<string, Statement>();
const MAX_STATEMENTS = 1000;

/**
 * The statement of one page, compiled once per filter shape (which filters are present) and
 * format, and bound to this filter's values and page.
 */
export function signalPageStatement(
  db: Database,
  filter: SignalFilter,
  page: Page,
  format: PageFormat,
): Statement {
  const values: Record<string, unknown> = {};
  const where = signalConditions(filter, (name, value) => {
    // Sent as the driver receives it, without drizzle's column encoders: times as ISO text.
    values[name] = value instanceof Date ? value.toISOString() : value;
    return sql.placeholder(name) as never;
  });
  const shape = `${format}:${Object.keys(values).join(',')}`;
  let statement = statements.get(shape);
  if (!statement) {
    if (statements.size >= MAX_STATEMENTS) statements.clear();
    statement = compileStatement(pageQuery(db, filter, where, format));
    statements.set(shape, statement);
  }
  return boundStatement(statement, {
    ...values,
    limit: page.limit,
    fetch: page.limit + 1,
    offset: page.offset,
  });
}

/**
 * One page of signals as text written by Postgres: a JSON array of signals, or CSV records
 * (CRLF between them, no header). `count` is how many signals it holds.
 */
export async function listSignalPage(
  db: Database,
  filter: SignalFilter,
  page: Page,
  format: PageFormat,
): Promise<{ data: string; count: number; hasMore: boolean }> {
  const [result] = await runStatement<{ data: string; rows: number }>(
    db,
    signalPageStatement(db, filter, page, format),
  );
  const { data, rows } = result!;
  return { data, count: Math.min(rows, page.limit), hasMore: rows > page.limit };
}
