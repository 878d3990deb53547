import { z } from '@hono/zod-openapi';
import { LAYERS, VALENCES, isCountryCode } from '../vocab';

/** The most webhooks one key may register (spec, Limits). */
export const WEBHOOK_LIMIT = 5;

const url = z.string().max(2048, 'must be at most 2048 characters').openapi({
  description: 'HTTPS endpoint that receives the deliveries; private and loopback addresses are refused.',
  example: 'https://hooks.example.com/signal-intel',
});
const name = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .openapi({ description: 'Human-readable label.', example: 'SOC alerts' });
const secret = z
  .string()
  .min(16, 'must be at least 16 characters')
  .max(256, 'must be at most 256 characters')
  .openapi({
    description: 'Signing secret (at least 16 characters). Stored encrypted, never returned.',
    example: 'whk-3c1f9a7e5b2d4f60',
  });
const layers = z
  .array(z.enum(LAYERS, { message: `must be one of ${LAYERS.join(', ')}` }))
  .min(1, 'must name at least one layer; omit the field for all layers')
  .max(LAYERS.length)
  .transform((values) => [...new Set(values)])
  .openapi({ description: 'Threat layers to match; omitted means all.', example: ['cyber', 'military'] });
const minScore = z
  .number()
  .min(0, 'must be between 0 and 10')
  .max(10, 'must be between 0 and 10')
  .openapi({ description: 'Lowest significance score to match; omitted means all.', example: 7 });
const countryCodes = z
  .array(
    z
      .string()
      .transform((code) => code.toUpperCase())
      .refine(isCountryCode, { message: 'must be an ISO 3166-1 alpha-2 country code' }),
  )
  .min(1, 'must name at least one country; omit the field for all countries')
  .max(250)
  .transform((values) => [...new Set(values)])
  .openapi({
    description: 'ISO-2 codes; a signal matches when it names any of them.',
    example: ['UA', 'PL'],
  });
const valence = z
  .enum(VALENCES, { message: `must be one of ${VALENCES.join(', ')}` })
  .openapi({ description: 'Signal valence to match; omitted means all.', example: 'crisis' });

const distinctEvents = z.boolean().openapi({
  description:
    "true: one delivery per event: its first signal that matches the filters, not its echoes (other outlets telling the same event). With `min_score`, the event's severity (its strongest signal's score) is compared, so the echo that first lifts an event to `min_score` is delivered. Default false: every matching signal.",
  example: true,
});

export const CreateWebhookSchema = z
  .strictObject({
    url,
    name: name.optional(),
    secret: secret.optional(),
    layers: layers.optional(),
    min_score: minScore.optional(),
    country_codes: countryCodes.optional(),
    valence: valence.optional(),
    distinct_events: distinctEvents.optional(),
  })
  .openapi('CreateWebhook');

/** Update: any of the fields of a webhook; `null` clears a filter (back to "all") or the name. */
export const UpdateWebhookSchema = z
  .strictObject({
    url: url.optional(),
    name: name.nullable().optional(),
    layers: layers.nullable().optional(),
    min_score: minScore.nullable().optional(),
    country_codes: countryCodes.nullable().optional(),
    valence: valence.nullable().optional(),
    distinct_events: distinctEvents.optional(),
    active: z
      .boolean()
      .optional()
      .openapi({ description: 'false pauses deliveries; true resumes them.', example: false }),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'must set at least one field' })
  .openapi('UpdateWebhook');

export type CreateWebhook = z.infer<typeof CreateWebhookSchema>;
export type UpdateWebhook = z.infer<typeof UpdateWebhookSchema>;

export const WebhookSchema = z
  .object({
    id: z.uuid().openapi({ example: '0b7e5c1a-4f2d-4c8e-9a31-6d2f8b0c7e14' }),
    url: z.string().openapi({ example: 'https://hooks.example.com/signal-intel' }),
    name: z.string().nullable().openapi({ example: 'SOC alerts' }),
    layers: z
      .array(z.enum(LAYERS))
      .nullable()
      .openapi({ example: ['cyber'] }),
    min_score: z.number().nullable().openapi({ example: 7 }),
    country_codes: z
      .array(z.string())
      .nullable()
      .openapi({ example: ['UA'] }),
    valence: z.enum(VALENCES).nullable().openapi({ example: 'crisis' }),
    active: z.boolean().openapi({ example: true }),
    distinct_events: z
      .boolean()
      .openapi({ description: 'Only the first matching signal of each event is delivered.', example: false }),
    has_secret: z.boolean().openapi({ description: 'Deliveries are signed.', example: true }),
    created_at: z.string().openapi({ example: '2026-11-21T08:00:00.000Z' }),
    updated_at: z.string().openapi({ example: '2026-11-21T08:00:00.000Z' }),
    last_delivery_at: z.string().nullable().openapi({ example: '2026-11-21T08:05:00.000Z' }),
    last_status: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'HTTP status of the last attempt (null: no response).', example: 200 }),
    consecutive_failures: z.number().int().openapi({ example: 0 }),
    disabled_reason: z
      .string()
      .nullable()
      .openapi({ description: 'Why the service paused it, if it did.', example: null }),
  })
  .openapi('Webhook');

export type WebhookJson = z.infer<typeof WebhookSchema>;

export const DeliverySchema = z
  .object({
    attempted_at: z.string().openapi({ example: '2026-11-21T08:05:00.000Z' }),
    delivery_id: z.uuid().openapi({
      description: 'Same on every retry of one batch (`X-Service-Delivery`, `webhook-id`).',
      example: '5a0c9e1b-2f3d-4b6a-8c7e-1d9f0a2b3c4d',
    }),
    signal_count: z.number().int().openapi({ example: 12 }),
    status: z.number().int().nullable().openapi({ description: 'null: no HTTP response.', example: 200 }),
    ok: z.boolean().openapi({ example: true }),
    duration_ms: z.number().int().openapi({ example: 143 }),
    error: z.string().nullable().openapi({
      description:
        'Why the attempt failed, as a class: `dns_failed`, `connect_failed`, `tls_failed`, `timeout`, `blocked_address`, `secret_unavailable` or `http_<status>`.',
      example: null,
    }),
    test: z
      .boolean()
      .openapi({ description: 'A test delivery (never counts as a failure).', example: false }),
  })
  .openapi('WebhookDelivery');

export const DispatchSummarySchema = z
  .object({
    webhooks: z.number().int().openapi({ description: 'Webhooks processed.', example: 3 }),
    deliveries: z.number().int().openapi({ description: 'Attempts made.', example: 4 }),
    succeeded: z.number().int().openapi({ example: 3 }),
    failed: z.number().int().openapi({ example: 1 }),
    signals: z.number().int().openapi({ description: 'Signals delivered with a 2xx.', example: 57 }),
    paused: z
      .number()
      .int()
      .openapi({ description: 'Webhooks paused after 3 days of failures.', example: 0 }),
  })
  .openapi('DispatchSummary');

export type DispatchSummary = z.infer<typeof DispatchSummarySchema>;
