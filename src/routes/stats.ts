import { createRoute, z } from '@hono/zod-openapi';
import { LayerSchema, WindowSchema } from '../analytics/schemas';
import { DAY_MS, windowOf } from '../analytics/sql';
import { platformStats } from '../analytics/stats';
import { access } from '../http/auth';
import { cached, CACHE_TTL } from '../http/cache';
import { edgeCache } from '../http/edge-cache';
import { etaggedJson } from '../http/etag';
import { answers, createRouter, errors } from '../http/openapi';
import { SOURCE_TIERS } from '../vocab';

const StatsSchema = z
  .object({
    generated_at: z.string().openapi({ example: '2026-11-22T06:00:00.000Z' }),
    windows: z.object({ last_24h: WindowSchema, last_7d: WindowSchema }),
    signals: z.object({
      total: z.number().int().openapi({ example: 6000 }),
      last_24h: z.number().int().openapi({ example: 310 }),
      last_7d: z.number().int().openapi({ example: 1600 }),
    }),
    sources: z.object({
      total: z.number().int(),
      by_tier: z.array(
        z.object({ tier: z.enum(SOURCE_TIERS), total: z.number().int(), active: z.number().int() }),
      ),
    }),
    languages: z.object({
      count: z.number().int(),
      by_language: z.array(z.object({ name: z.string(), signal_count: z.number().int() })),
    }),
    layers: z.array(
      z.object({ threat_layer: LayerSchema, total: z.number().int(), last_24h: z.number().int() }),
    ),
  })
  .openapi('PlatformStats');

const statsRoute = createRoute({
  method: 'get',
  path: '/api/v1/stats',
  tags: ['Analytics'],
  summary: 'Platform statistics',
  description:
    'Signal volumes, sources by tier, language coverage and layer breakdown. Public; cached 10 minutes.',
  middleware: [edgeCache(), access('public')] as const,
  ...answers({ cached: true }),
  responses: {
    200: { description: 'The statistics.', content: { 'application/json': { schema: StatsSchema } } },
    304: { description: 'Not modified: `If-None-Match` matched the `ETag`.' },
    ...errors(401, 429, 503),
  },
});

export const statsRoutes = createRouter().openapi(statsRoute, async (c) => {
  const { db, now } = c.env.deps;
  const value = await cached(
    c,
    'stats',
    CACHE_TTL.stats,
    async () => {
      const at = now();
      return {
        generated_at: at.toISOString(),
        windows: {
          last_24h: windowOf(new Date(at.getTime() - DAY_MS), at),
          last_7d: windowOf(new Date(at.getTime() - 7 * DAY_MS), at),
        },
        ...(await platformStats(db, at)),
      };
    },
    'public',
  );
  return etaggedJson(c, value);
});
