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
