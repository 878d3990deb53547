import { z } from '@hono/zod-openapi';
import { isCalendarTime, timestampProblem } from '../signals/timestamps';
import { LAYERS, REGIONS, VALENCES, isCountryCode } from '../vocab';

/**
 * Query-string parameter schemas shared by every route, so one rule has one wording.
 * Each takes the raw string and yields the typed value.
 */

const NUMBER = /^-?\d+(\.\d+)?$/;
const INTEGER = /^-?\d+$/;

/** A decimal number in [min, max]. */
export const numberParam = (min: number, max: number) =>
  z
    .string()
    .regex(NUMBER, 'must be a number')
    .transform(Number)
    .pipe(
      z.number().min(min, `must be between ${min} and ${max}`).max(max, `must be between ${min} and ${max}`),
    )
    .openapi({ type: 'number', minimum: min, maximum: max });

/** A whole number in [min, max]. */
export const intParam = (min: number, max: number) =>
  z
    .string()
    .regex(INTEGER, 'must be a whole number')
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, `must be between ${min} and ${max}`)
        .max(max, `must be between ${min} and ${max}`),
    )
    .openapi({ type: 'integer', minimum: min, maximum: max });

export const booleanParam = () =>
  z.enum(['true', 'false'], { message: 'must be true or false' }).transform((v) => v === 'true');

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
/** Both shapes as one pattern, for the OpenAPI document. */
const ISO_PATTERN = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2}))?$';

/**
 * An ISO 8601 date (`2026-11-01`, midnight UTC) or date-time with `Z` or an offset: a real
 * calendar day (no February 31) from 1900 to 9999 (src/signals/timestamps.ts).
 */
export const isoParam = () =>
  z
    .string()
    .refine((v) => ISO_DATE.test(v) || ISO_DATETIME.test(v), {
      message: 'must be an ISO 8601 date or date-time with offset, e.g. 2026-11-01T00:00:00Z',
      abort: true,
    })
    .refine(isCalendarTime, {
      message: 'must be a real calendar date and time (no February 31, no hour 24)',
      abort: true,
    })
    .superRefine((v, ctx) => {
      const problem = timestampProblem(Date.parse(v));
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .transform((v) => new Date(v))
    .openapi({ type: 'string', pattern: ISO_PATTERN });

export const layerParam = () => z.enum(LAYERS, { message: `must be one of ${LAYERS.join(', ')}` });

const LAYER_ALTERNATIVES = `(?:${LAYERS.join('|')})`;
/** One layer or more, comma-separated; empty entries (`cyber,,`) are skipped as the parser does. */
const LAYERS_PATTERN = `^(?:\\s*,)*\\s*${LAYER_ALTERNATIVES}\\s*(?:,\\s*(?:${LAYER_ALTERNATIVES}\\s*)?)*$`;

/** Comma-separated threat layers, each checked. */
export const layersParam = () =>
  z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(z.enum(LAYERS, { message: `must be comma-separated values of ${LAYERS.join(', ')}` }))
        .min(1, 'must name at least one layer')
        .transform((layers) => [...new Set(layers)]),
    )
    .openapi({ type: 'string', pattern: LAYERS_PATTERN });

export const valenceParam = () => z.enum(VALENCES, { message: `must be one of ${VALENCES.join(', ')}` });

export const regionParam = () => z.enum(REGIONS, { message: `must be one of ${REGIONS.join(', ')}` });

/** An ISO 3166-1 alpha-2 code, any case; yields upper case. */
export const countryParam = () =>
  z
    .string()
    .transform((v) => v.toUpperCase())
    .refine(isCountryCode, { message: 'must be an ISO 3166-1 alpha-2 country code' })
    .openapi({ type: 'string', pattern: '^[A-Za-z]{2}$' });

const DECIMAL = '\\s*-?\\d+(\\.\\d+)?\\s*';
/** Four comma-separated numbers (their ranges and order are checked by the server). */
const BBOX_PATTERN = `^${DECIMAL},${DECIMAL},${DECIMAL},${DECIMAL}$`;

/** `minLat,minLng,maxLat,maxLng` in degrees. */
export const bboxParam = () =>
  z
    .string()
    .transform((value, ctx) => {
      const parts = value.split(',').map((p) => p.trim());
      const nums = parts.map(Number);
      const bad = (message: string) => {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      };
      if (parts.length !== 4 || parts.some((p) => !NUMBER.test(p))) {
        return bad('must be minLat,minLng,maxLat,maxLng as four numbers');
      }
      const [minLat, minLng, maxLat, maxLng] = nums as [number, number, number, number];
      if ([minLat, maxLat].some((v) => v < -90 || v > 90)) return bad('latitudes must be within -90..90');
      if ([minLng, maxLng].some((v) => v < -180 || v > 180))
        return bad('longitudes must be within -180..180');
      if (minLat > maxLat || minLng > maxLng) return bad('minimums must not exceed maximums');
      return { minLat, minLng, maxLat, maxLng };
    })
    .openapi({ type: 'string', pattern: BBOX_PATTERN });

export const textParam = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    // Postgres rejects NUL in text; refuse control characters here rather than fail in SQL.
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters');

/** The deepest `offset` a list accepts; deeper pages are read by cursor. */
const MAX_OFFSET = 10_000;

/** A list's `offset`, at most `MAX_OFFSET`: deep offsets cost in proportion to their depth. */
const offsetParam = () =>
  z
    .string()
    .regex(INTEGER, 'must be a whole number')
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(0, `must be between 0 and ${MAX_OFFSET}`)
        .max(
          MAX_OFFSET,
          `must be at most ${MAX_OFFSET}; page deeper with \`cursor\` (pass pagination.next_cursor), which costs the same at any depth`,
        ),
    )
    .openapi({ type: 'integer', minimum: 0, maximum: MAX_OFFSET });

/** An opaque keyset cursor as a list wrote it in `pagination.next_cursor`. */
export const cursorParam = () =>
  z
    .string()
    .min(1, 'must not be empty')
    .max(300, 'is not a cursor this API wrote; pass pagination.next_cursor as it came')
    .regex(/^[A-Za-z0-9_-]+$/, 'is not a cursor this API wrote; pass pagination.next_cursor as it came');

/**
 * The page query of a list route: `limit` (1–100), `offset` and `cursor`, one rule for every
 * list, worded for its rows and for where its cursor comes from. Spread into the route's query.
 *
 * @example z.object({ ...pageParams({ defaultLimit: 50, cursor: '`pagination.next_cursor` of the previous page.' }) })
 */
export const pageParams = (list: {
  defaultLimit: number;
  /** The `limit` description; `Page size, 1–100.` unless the rows need naming. */
  limit?: string;
  /** What `offset` skips, capitalised: `Rows` unless the rows need naming. */
  rows?: string;
  /** Where the cursor comes from and what it must be sent with. */
  cursor: string;
}) => ({
  limit: intParam(1, 100)
    .default(list.defaultLimit)
    .openapi({ type: 'integer', description: list.limit ?? 'Page size, 1–100.', example: list.defaultLimit }),
  offset: offsetParam()
    .optional()
    .openapi({
      type: 'integer',
      description: `${list.rows ?? 'Rows'} to skip, 0–10,000 (default 0). Page deeper with \`cursor\`.`,
      example: 0,
    }),
  cursor: cursorParam().optional().openapi({ description: list.cursor }),
});

/** `distinct=event`: one signal per event (the strongest that matches the other filters). */
export const distinctParam = () =>
  z.enum(['event'], { message: 'must be event (one signal per event)' }).openapi({
    description:
      "`event`: one signal per event, the strongest of the event's signals that match the other filters (filters apply first), so an event told by ten outlets appears once, with its `corroboration`. Pages never repeat an event.",
    example: 'event',
  });
