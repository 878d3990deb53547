import { z } from '@hono/zod-openapi';
import { fieldErrors } from '../http/openapi';
import type { FieldError } from '../http/problem';
import { timestampProblem } from '../signals/timestamps';
import { LAYERS, SOURCE_TIERS, VALENCES, isCountryCode } from '../vocab';

/** A calendar date-time (zod refuses February 31) within the stored range; the future bound is in `validateItem`. */
const timestamp = z.iso
  .datetime({ offset: true, message: 'must be an ISO 8601 date-time with offset' })
  .superRefine((value, ctx) => {
    const problem = timestampProblem(Date.parse(value));
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
const language = z
  .string()
  .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/, 'must be a language tag such as en or pt-BR');

// Postgres refuses NUL in text; catching it here keeps it a per-item error instead of a failed insert.
const text = () => z.string().regex(/^[^\u0000]*$/, 'must not contain NUL characters');

/** One signal as the ingest endpoint accepts it (docs/live-sources.md, "Ingest"). Unknown fields are errors. */
export const IngestItemSchema = z
  .strictObject({
    id: z.uuid().optional(),
    threat_layer: z.enum(LAYERS),
    significance_score: z.number().min(0).max(10),
    signal_valence: z.enum(VALENCES),
    title: text().trim().max(300).optional(),
    content_display: text().trim().min(1).max(10_000),
    country_codes: z
      .array(
        z
          .string()
          .transform((code) => code.toUpperCase())
          .refine(isCountryCode, 'must be an ISO 3166-1 alpha-2 country code'),
      )
      .max(20)
      .transform((codes) => [...new Set(codes)]),
    city: text().trim().min(1).max(120).nullish(),
    lat: z.number().min(-90).max(90).nullish(),
    lng: z.number().min(-180).max(180).nullish(),
    language: language.nullish(),
    published_at: timestamp,
    collected_at: timestamp.optional(),
    is_anomaly: z.boolean().optional(),
    source_url: text().pipe(z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2000)),
    source: z.strictObject({
      name: text().trim().min(1).max(200),
      url: z.url({ protocol: /^https?$/ }).optional(),
      tier: z.enum(SOURCE_TIERS).optional(),
      language: language.optional(),
    }),
  })
  .refine((item) => (item.lat == null) === (item.lng == null), {
    path: ['lat'],
    message: 'lat and lng must be given together',
  });

export type IngestItem = z.infer<typeof IngestItemSchema>;

export type Validated = { ok: true; item: IngestItem } | { ok: false; errors: FieldError[] };

/**
 * Validates one raw item arriving at `now`: its own dates may not lie more than a small clock
 * skew past its arrival (src/signals/timestamps.ts).
 */
export function validateItem(raw: unknown, now: Date = new Date()): Validated {
  const parsed = IngestItemSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, errors: fieldErrors(parsed.error) };
  const errors: FieldError[] = [];
  for (const field of ['published_at', 'collected_at'] as const) {
    const value = parsed.data[field];
    const problem = value === undefined ? null : timestampProblem(Date.parse(value), now);
    if (problem) errors.push({ path: field, message: problem });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, item: parsed.data };
}

/** A title for items that come without one: the first sentence, at most 120 characters. */
function fallbackTitle(content: string): string {
  const sentence = content.split(/(?<=[.!?])\s/)[0] ?? content;
  return sentence.length <= 120 ? sentence : `${sentence.slice(0, 117).trimEnd()}…`;
}

/** The title a signal is stored and linked under: its own, else `fallbackTitle` of its content. */
export const titleOf = (item: Pick<IngestItem, 'title' | 'content_display'>): string =>
  item.title || fallbackTitle(item.content_display);
