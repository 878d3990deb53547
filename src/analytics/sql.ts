/** Raw timestamps come back as Date or string depending on the driver; answers use ISO 8601 `Z`. */
export const iso = (value: Date | string | null): string | null =>
  value === null ? null : new Date(value).toISOString();

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** The window an analytic answer covers, as it is stated in every response. */
export const windowOf = (start: Date, end: Date) => ({ start: start.toISOString(), end: end.toISOString() });
