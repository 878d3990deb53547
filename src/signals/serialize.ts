import { z } from '@hono/zod-openapi';
import { LAYERS, REGIONS, SOURCE_TIERS, VALENCES } from '../vocab';
import type { SignalRow } from './query';

/** The event a signal belongs to (shared by every report of one real-world happening). */
export const EventIdSchema = z.uuid().openapi({
  description:
    'The event this signal reports: every signal about the same real-world happening (from any source) shares it. Stable: a merged event keeps redirecting to the one that absorbed it.',
  example: '9d2e4b1c-3a5f-4e7d-8b6c-1f0a2e3d4c5b',
});

/** How many independent publishers report the signal's event. */
export const CorroborationSchema = z.number().int().min(1).openapi({
  description:
    "How many independent publishers report this signal's event (outlets of one owner count once). 1 means this source alone.",
  example: 3,
});

export const SignalSchema = z
  .object({
    id: z.uuid().openapi({ example: '3f1c2a9e-7b4d-4e8a-9c1f-2d6b8a0e5f31' }),
    threat_layer: z.enum(LAYERS).openapi({ example: 'cyber' }),
    significance_score: z.number().min(0).max(10).openapi({ example: 8.4 }),
    signal_valence: z.enum(VALENCES).openapi({ example: 'crisis' }),
    title: z.string().openapi({ example: 'Ransomware group hits three hospital networks' }),
    content_display: z.string().openapi({
      example: 'Hospitals in Lyon diverted ambulances after a ransomware attack encrypted records.',
    }),
    country_codes: z.array(z.string()).openapi({ example: ['FR'] }),
    region: z.enum(REGIONS).nullable().openapi({ example: 'Europe' }),
    city: z.string().nullable().openapi({ example: 'Lyon' }),
    lat: z.number().nullable().openapi({ example: 45.764 }),
    lng: z.number().nullable().openapi({ example: 4.8357 }),
    language: z.string().nullable().openapi({ example: 'en' }),
    published_at: z.string().openapi({ example: '2026-11-21T08:30:00.000Z' }),
    collected_at: z.string().openapi({ example: '2026-11-21T08:42:10.000Z' }),
    is_anomaly: z.boolean().openapi({ example: false }),
    source_url: z.string().openapi({ example: 'https://example-wire.com/2026/lyon-hospitals' }),
    updated_at: z.string().openapi({
      description:
        'When the signal last changed: its ingest, an upstream revision or a retraction. Sync with `updated_since`.',
      example: '2026-11-21T08:43:00.000Z',
    }),
    retracted_at: z.string().nullable().openapi({
      description:
        'When the upstream withdrew the signal. Retracted signals are only listed by `updated_since` sync; elsewhere this is always null.',
      example: null,
    }),
    source: z.object({
      id: z.uuid(),
      name: z.string().openapi({ example: 'Example Wire' }),
      tier: z.enum(SOURCE_TIERS).openapi({ example: 'core' }),
    }),
    event_id: EventIdSchema,
    corroboration: CorroborationSchema,
  })
  .openapi('Signal');

export type SignalJson = z.infer<typeof SignalSchema>;

/** A signal row in the public JSON shape. */
export function signalJson(row: SignalRow): SignalJson {
  return {
    id: row.id,
    threat_layer: row.threatLayer as SignalJson['threat_layer'],
    significance_score: row.significanceScore,
    signal_valence: row.signalValence as SignalJson['signal_valence'],
    title: row.title,
    content_display: row.contentDisplay,
    country_codes: row.countryCodes,
    region: row.region as SignalJson['region'],
    city: row.city,
    lat: row.lat,
    lng: row.lng,
    language: row.language,
    published_at: row.publishedAt.toISOString(),
    collected_at: row.collectedAt.toISOString(),
    is_anomaly: row.isAnomaly,
    source_url: row.sourceUrl,
    updated_at: row.updatedAt.toISOString(),
    retracted_at: row.retractedAt?.toISOString() ?? null,
    source: { id: row.sourceId, name: row.sourceName, tier: row.sourceTier as SignalJson['source']['tier'] },
    event_id: row.eventId,
    corroboration: row.corroboration,
  };
}
