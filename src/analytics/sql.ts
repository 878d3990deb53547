import { sql, type SQL } from 'drizzle-orm';

/** Raw timestamps come back as Date or string depending on the driver; answers use ISO 8601 `Z`. */
export const iso = (value: Date | string | null): string | null =>
  value === null ? null : new Date(value).toISOString();

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** The window an analytic answer covers, as it is stated in every response. */
export const windowOf = (start: Date, end: Date) => ({ start: start.toISOString(), end: end.toISOString() });

/**
 * A window (start, end] read from hourly aggregates: its whole buckets are the hours in
 * [lo, hi); the signals outside them (the partial hours at each end) are read from the signals
 * table, so the answer is exact for any window while reading at most two hours of raw rows.
 */
export interface Span {
  start: string;
  end: string;
  lo: string;
  hi: string;
  /** False when the window has no whole hour: everything is read raw. */
  whole: boolean;
  /** Whole UTC days [dlo, dhi) inside [lo, hi), for daily buckets; `days` false when none. */
  dlo: string;
  dhi: string;
  days: boolean;
}

export function spanOf(start: Date, end: Date): Span {
  const lo = Math.floor(start.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS;
  const hi = Math.floor(end.getTime() / HOUR_MS) * HOUR_MS;
  const dlo = Math.ceil(lo / DAY_MS) * DAY_MS;
  const dhi = Math.floor(hi / DAY_MS) * DAY_MS;
  const at = (ms: number) => new Date(ms).toISOString();
  return {
    start: start.toISOString(),
    end: end.toISOString(),
    lo: at(lo),
    hi: at(hi),
    whole: lo < hi,
    dlo: at(dlo),
    dhi: at(dhi),
    days: lo < hi && dlo < dhi,
  };
}

/** The daily aggregate rows (`bucket` column) that are whole days of `s`. */
export const inDays = (s: Span): SQL =>
  s.days ? sql`(bucket >= ${s.dlo}::timestamptz AND bucket < ${s.dhi}::timestamptz)` : sql`false`;

/** The hourly rows of `s` that its whole days (`inDays`) do not hold. */
export const inHoursBesideDays = (s: Span): SQL =>
  s.days
    ? sql`((bucket >= ${s.lo}::timestamptz AND bucket < ${s.dlo}::timestamptz)
           OR (bucket >= ${s.dhi}::timestamptz AND bucket < ${s.hi}::timestamptz))`
    : inBuckets(s);

/** The aggregate rows (`bucket` column) that are whole hours of `s`. */
export const inBuckets = (s: Span): SQL =>
  s.whole ? sql`(bucket >= ${s.lo}::timestamptz AND bucket < ${s.hi}::timestamptz)` : sql`false`;

/** The signals (`published_at` column) of `s` that its whole buckets do not hold: two index ranges. */
export const atEdges = (s: Span): SQL =>
  s.whole
    ? sql`((published_at > ${s.start}::timestamptz AND published_at < ${s.lo}::timestamptz)
           OR (published_at >= ${s.hi}::timestamptz AND published_at <= ${s.end}::timestamptz))`
    : sql`(published_at > ${s.start}::timestamptz AND published_at <= ${s.end}::timestamptz)`;

/** OR of fragments (for reading several windows in one pass). */
export const anyOf = (parts: SQL[]): SQL => sql`(${sql.join(parts, sql` OR `)})`;
