/** Operator-facing shapes of a polled source (`/api/v1/admin/sources`, `sources add`). */
import { z } from '@hono/zod-openapi';
import { SOURCE_TIERS } from '../vocab';
import { CONNECTOR_NAMES } from './types';

const when = z.string().nullable().openapi({ format: 'date-time' });

export const AdminSourceSchema = z
  .object({
    id: z.uuid(),
    name: z.string().openapi({ example: 'GDACS alerts' }),
    connector: z.enum(CONNECTOR_NAMES).nullable().openapi({ description: 'Null for ingest-only sources.' }),
    url: z.string().nullable().openapi({ example: 'https://www.gdacs.org/xml/rss.xml' }),
    tier: z.enum(SOURCE_TIERS),
    interval_minutes: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Minutes between polls; null: the connector's default." }),
    enabled: z.boolean(),
    options: z.record(z.string(), z.unknown()),
    signal_count: z.number().int(),
    last_seen_at: when,
    last_polled_at: when,
    last_success_at: when,
    last_error: z.string().nullable(),
    consecutive_failures: z.number().int(),
    last_poll_items: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Items the last successful poll parsed.' }),
    next_poll_at: when,
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('AdminSource');

const settingsFields = {
  name: z.string().trim().min(1).max(200),
  url: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2000),
  tier: z.enum(SOURCE_TIERS, { message: `must be one of ${SOURCE_TIERS.join(', ')}` }),
  interval_minutes: z.number().int().min(1).max(10_080).nullable(),
  enabled: z.boolean(),
  options: z.record(z.string(), z.unknown()),
};

export const CreateSourceSchema = z
  .strictObject({
    connector: z.enum(CONNECTOR_NAMES, { message: `must be one of ${CONNECTOR_NAMES.join(', ')}` }),
    name: settingsFields.name.openapi({ example: 'Reuters world' }),
    url: settingsFields.url.openapi({ example: 'https://feeds.example.org/world.rss' }),
    tier: settingsFields.tier.default('community'),
    interval_minutes: settingsFields.interval_minutes.default(null),
    enabled: settingsFields.enabled.default(true),
    options: settingsFields.options.default({}),
  })
  .openapi('CreateSource');

export const UpdateSourceSchema = z
  .strictObject({
    name: settingsFields.name.optional(),
    url: settingsFields.url.optional(),
    tier: settingsFields.tier.optional(),
    interval_minutes: settingsFields.interval_minutes.optional(),
    enabled: settingsFields.enabled.optional(),
    options: settingsFields.options.optional(),
  })
  .openapi('UpdateSource');
