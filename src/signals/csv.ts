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

/**
 * RFC 4180 CSV (header row, CRLF line ends, UTF-8) from records Postgres wrote (signals/page.ts):
 * `records` joined by CRLF, none for an empty page.
 */
export const signalsCsv = (records: string) => `${CSV_COLUMNS.join(',')}\r\n${records && `${records}\r\n`}`;

/** Response headers for a CSV download named `filename`. */
export const csvHeaders = (filename: string) => ({
  'Content-Type': 'text/csv; charset=utf-8',
  'Content-Disposition': `attachment; filename="${filename}"`,
});
