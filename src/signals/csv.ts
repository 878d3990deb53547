export const CSV_COLUMNS = [
  'id',
  'threat_layer',
  'significance_score',
  'signal_valence',
  'title',
  'content_display',
  'country_codes',
  'region',
  'city',
  'lat',
  'lng',
  'language',
  'published_at',
  'collected_at',
  'is_anomaly',
  'source_url',
  'source_id',
  'source_name',
  'source_tier',
  // Last, so readers of the older columns by position are unaffected.
  'updated_at',
  'retracted_at',
  'event_id',
  'corroboration',
] as const;

const HEADER_LINE = `${CSV_COLUMNS.join(',')}\r\n`;

/**
 * RFC 4180 CSV (header row, CRLF line ends, UTF-8) from records Postgres wrote (signals/page.ts):
 * `records` joined by CRLF, none for an empty page.
 */
export const signalsCsv = (records: string) => signalsCsvParts(records).join('');

/**
 * `signalsCsv` in its parts, to be encoded one after the other (`utf8Body`): joined, the page
 * was copied into a new flat string only to be encoded, a second page-sized allocation on
 * every CSV request, and large enough to outlive the young generation under load.
 */
export const signalsCsvParts = (records: string): string[] => [HEADER_LINE, records, records && '\r\n'];

/** Response headers for a CSV download named `filename`. */
export const csvHeaders = (filename: string) => ({
  'Content-Type': 'text/csv; charset=utf-8',
  'Content-Disposition': `attachment; filename="${filename}"`,
});
