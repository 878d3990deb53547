/**
 * The range of timestamps the API stores and accepts (docs/limits-and-bounds.md, "Dates").
 * Postgres stores years 4713 BC to 294276 AD, JavaScript years ±275760, and neither refuses
 * February 31 the same way: a date the two disagree on used to reach SQL and fail there. Every
 * date that enters (ingest items, connector items, query parameters, cursors) is checked here
 * first, against one calendar and one range.
 */

/** Nothing is stored, or looked for, before this instant. */
const EARLIEST_TIMESTAMP = '1900-01-01T00:00:00Z';
const EARLIEST_MS = Date.parse(EARLIEST_TIMESTAMP);
/** The last instant a query parameter may name: four-digit years only. */
const LATEST_MS = Date.parse('9999-12-31T23:59:59.999Z');
/** How far past the arrival time an item's own dates may lie: senders' clocks drift a little. */
const FUTURE_SKEW_MINUTES = 15;

/** `YYYY-MM-DD`, then optionally `Thh:mm[:ss[.fff]]` and an offset (`Z`, `+hh:mm`, `+hh`, `+hhmm`). */
const FIELDS =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2})(?::?(\d{2}))?(?::\d{2})?)?)?$/i;

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * True when `text`'s fields name a real calendar instant: month 1–12, a day its month has
 * (no February 31, which `Date.parse` rolls into March), hours 0–23, minutes and seconds 0–59,
 * an offset within ±15:59 (what Postgres allows).
 */
export function isCalendarTime(text: string): boolean {
  const m = FIELDS.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return false;
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59)) return false;
  if (m[7] !== undefined && (Number(m[7]) > 15 || Number(m[8] ?? 0) > 59)) return false;
  return !Number.isNaN(Date.parse(text));
}

/**
 * Why the instant `ms` may not be stored or looked for, or null when it may. With `now`, the
 * instant is an item's own date and may not lie more than `FUTURE_SKEW_MINUTES` past it (an
 * item dated 9999 would top every newest-first list for ever); without, it is a query bound,
 * which may name any four-digit year from 1900.
 */
export function timestampProblem(ms: number, now?: Date): string | null {
  if (Number.isNaN(ms)) return 'must be a date-time';
  if (ms < EARLIEST_MS) return `must not be before ${EARLIEST_TIMESTAMP}`;
  if (now && ms > now.getTime() + FUTURE_SKEW_MINUTES * 60_000) {
    return `must not be more than ${FUTURE_SKEW_MINUTES} minutes after the time it arrives`;
  }
  if (ms > LATEST_MS) return 'must be before the year 10000';
  return null;
}

/** True when `text` is a calendar instant within the accepted range of a query bound or cursor. */
export const isAcceptedTime = (text: string): boolean =>
  isCalendarTime(text) && timestampProblem(Date.parse(text)) === null;

/**
 * Postgres date/time errors: invalid_datetime_format (22007), datetime_field_overflow (22008),
 * invalid_time_zone_displacement_value (22009), interval_field_overflow (22015). Every date the
 * API sends to SQL is checked first, so one of these means a caller's value slipped past a
 * check: it is the caller's input, answered 400, never a 500.
 */
const DATETIME_CODES = new Set(['22007', '22008', '22009', '22015']);

/** True for a Postgres date/time error, on the error or one of the causes drivers wrap it in. */
export function isDatetimeError(error: unknown): boolean {
  let e = error as { code?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 5; depth++, e = e.cause as typeof e) {
    if (typeof e.code === 'string' && DATETIME_CODES.has(e.code)) return true;
  }
  return false;
}
