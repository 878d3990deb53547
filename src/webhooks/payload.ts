import { z } from '@hono/zod-openapi';
import type { SignalRow } from '../signals/query';
import { CorroborationSchema, EventIdSchema } from '../signals/serialize';
import { LAYERS, VALENCES } from '../vocab';

/**
 * The body of a webhook delivery, written once: the OpenAPI document describes it from these
 * schemas, and `deliveryBody` is typed by them, so the two cannot drift apart.
 */

/** A signal as a webhook delivery carries it: the fields a receiver acts on. */
const WebhookSignalSchema = z
  .object({
    id: z.uuid(),
    threat_layer: z.enum(LAYERS),
    significance_score: z.number().min(0).max(10),
    signal_valence: z.enum(VALENCES),
    content_display: z.string(),
    country_codes: z.array(z.string()),
    published_at: z.string(),
    collected_at: z.string(),
    is_anomaly: z.boolean(),
    source_url: z.string(),
    event_id: EventIdSchema,
    corroboration: CorroborationSchema,
  })
  .openapi('WebhookSignal');

export const WebhookPayloadSchema = z
  .object({
    webhook_id: z.uuid().openapi({ example: '0b7e5c1a-4f2d-4c8e-9a31-6d2f8b0c7e14' }),
    fired_at: z.string().openapi({ example: '2026-11-21T08:05:00.000Z' }),
    signal_count: z.number().int().min(1).openapi({ example: 1 }),
    signals: z.array(WebhookSignalSchema),
  })
  .openapi('WebhookPayload', { description: 'The body of a webhook delivery.' });

type WebhookSignal = z.infer<typeof WebhookSignalSchema>;
type WebhookPayload = z.infer<typeof WebhookPayloadSchema>;

/** The spec's webhook fields of a signal, plus its event and corroboration (additive). */
function webhookSignalJson(row: SignalRow): WebhookSignal {
  return {
    id: row.id,
    // The layer and valence columns hold only vocabulary values (ingest validates them).
    threat_layer: row.threatLayer as WebhookSignal['threat_layer'],
    significance_score: row.significanceScore,
    signal_valence: row.signalValence as WebhookSignal['signal_valence'],
    content_display: row.contentDisplay,
    country_codes: row.countryCodes,
    published_at: row.publishedAt.toISOString(),
    collected_at: row.collectedAt.toISOString(),
    is_anomaly: row.isAnomaly,
    source_url: row.sourceUrl,
    event_id: row.eventId,
    corroboration: row.corroboration,
  };
}

/** The delivery body: webhook_id, fired_at, signal_count and the signals (docs/webhooks.md). */
export function deliveryBody(webhookId: string, firedAt: Date, rows: SignalRow[]): string {
  const payload: WebhookPayload = {
    webhook_id: webhookId,
    fired_at: firedAt.toISOString(),
    signal_count: rows.length,
    signals: rows.map(webhookSignalJson),
  };
  return JSON.stringify(payload);
}
