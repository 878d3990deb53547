import { stringify } from 'csv-stringify/sync';
import type { SignalJson } from './serialize';

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
] as const;

const FORMULA_START = /^[=+\-@]/;

/** Prefixes `'` to text a spreadsheet would run as a formula (CSV injection). */
export const neutralizeFormula = (text: string) => (FORMULA_START.test(text) ? `'${text}` : text);

function csvRow(signal: SignalJson): string[] {
  const text = (value: string | null) => (value === null ? '' : neutralizeFormula(value));
  const number = (value: number | null) => (value === null ? '' : String(value));
  return [
    signal.id,
    signal.threat_layer,
    String(signal.significance_score),
    signal.signal_valence,
    text(signal.title),
    text(signal.content_display),
    signal.country_codes.join(';'),
    text(signal.region),
    text(signal.city),
    number(signal.lat),
    number(signal.lng),
    text(signal.language),
    signal.published_at,
    signal.collected_at,
    String(signal.is_anomaly),
    text(signal.source_url),
    signal.source.id,
    text(signal.source.name),
    signal.source.tier,
  ];
}

/** RFC 4180 CSV: header row, CRLF line ends, every field of the signal. */
export function signalsCsv(rows: SignalJson[]): string {
  return stringify([[...CSV_COLUMNS], ...rows.map(csvRow)], { record_delimiter: '\r\n' });
}

/** Response headers for a CSV download named `filename`. */
export const csvHeaders = (filename: string) => ({
  'Content-Type': 'text/csv; charset=utf-8',
  'Content-Disposition': `attachment; filename="${filename}"`,
});
