import { createRoute, z } from '@hono/zod-openapi';
import { LayerSchema, RegionSchema, WindowSchema } from '../analytics/schemas';
import { trending } from '../analytics/trending';
import { access } from '../http/auth';
import { cached, CACHE_TTL } from '../http/cache';
import { answers, createRouter, errors, security } from '../http/openapi';

const trendFields = {
  spike_ratio: z
    .number()
    .openapi({ description: '(recent_count + 1) / (expected_count + 1).', example: 4.2 }),
  recent_count: z
    .number()
    .int()
    .openapi({ description: 'Events in the last 6 hours (each once, not its echoes).', example: 20 }),
  baseline_count: z.number().int().openapi({ description: 'Events in the 7 days before.', example: 112 }),
  expected_count: z.number().openapi({ description: 'baseline_count / 28: a usual 6 hours.', example: 4 }),
};

const TrendingSchema = z
  .object({
    window: WindowSchema,
    baseline_window: WindowSchema,
    layers: z.array(z.object({ threat_layer: LayerSchema, ...trendFields })),
    countries: z.array(
      z.object({
        country_code: z.string().openapi({ example: 'UA' }),
        region: RegionSchema.nullable(),
        ...trendFields,
      }),
    ),
  })
  .openapi('Trending');

const trendingRoute = createRoute({
  method: 'get',
  path: '/api/v1/trending',
  tags: ['Analytics'],
  summary: 'Trending layers and countries',
  description:
    'Top 8 layers and top 8 countries (primary country) by spike ratio of the last 6 hours against the 7 days before, counting events, not echoes (a story ten outlets tell counts once). Cached 10 minutes.',
  security,
  middleware: [access('key')] as const,
  ...answers({ cached: true }),
  responses: {
    200: {
      description: 'Trending entries with the counts behind each ratio.',
      content: { 'application/json': { schema: TrendingSchema } },
    },
    ...errors(401, 429, 503),
  },
});

export const trendingRoutes = createRouter().openapi(trendingRoute, async (c) => {
  const { db, now } = c.env.deps;
  const value = await cached(c, 'trending', CACHE_TTL.trending, () => trending(db, now()), 'private');
  return c.json(value as z.infer<typeof TrendingSchema>, 200);
});
