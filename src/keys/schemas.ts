import { z } from '@hono/zod-openapi';
import { KEY_TIERS } from '../vocab';

export const IssuedKeySchema = z
  .object({
    id: z.uuid(),
    key: z.string().openapi({
      description: 'The raw API key. Shown once, at creation; store it now.',
      example: 'sig_4fT9kQ2mZx8LrW1bV7nC3pY6sD0hJ5gA2eU9iO5R3k2Lq',
    }),
    prefix: z.string().openapi({ example: 'sig_4fT9kQ2m' }),
    name: z.string().nullable().openapi({ example: 'production' }),
    tier: z.enum(KEY_TIERS).openapi({ example: 'free' }),
    created_at: z.string().openapi({ example: '2026-11-22T10:00:00.000Z' }),
  })
  .openapi('IssuedKey');

export const keyName = z.string().trim().min(1).max(100).openapi({ example: 'production' });
export const email = z
  .email({ message: 'must be an email address' })
  .max(254)
  .openapi({ example: 'analyst@example.org' });

const KeyUsageSchema = z
  .object({
    requests_total: z.number().int().openapi({
      description: 'Requests made with this key since it was issued (recorded after each response).',
      example: 1234,
    }),
    window_used: z.number().int().nullable().openapi({
      description: 'Requests counted in the current rolling hour; null when the limiter is unreachable.',
      example: 17,
    }),
    window_limit: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Requests allowed per rolling hour.', example: 100 }),
    window_reset: z.number().int().nullable().openapi({
      description: 'Unix seconds when the current window ends (as X-RateLimit-Reset).',
      example: 1795860000,
    }),
  })
  .openapi('KeyUsage');

export const KeyRecordSchema = z
  .object({
    id: z.uuid().openapi({ example: '0b7c7f5e-3f1a-4c2e-9a51-6f0d2b8e4a11' }),
    prefix: z
      .string()
      .openapi({ description: 'The first 12 characters of the key.', example: 'sig_4fT9kQ2m' }),
    name: z.string().nullable().openapi({ example: 'production' }),
    tier: z.enum(KEY_TIERS).openapi({ example: 'free' }),
    created_at: z.string().openapi({ example: '2026-11-22T10:00:00.000Z' }),
    last_used_at: z.string().nullable().openapi({ example: '2026-11-22T11:59:03.000Z' }),
    revoked_at: z.string().nullable().openapi({ example: null }),
    usage: KeyUsageSchema,
  })
  .openapi('KeyRecord', {
    description: 'An API key of the account. The raw key and its hash are never returned.',
  });
