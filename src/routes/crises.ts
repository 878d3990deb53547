import { createRoute, z } from '@hono/zod-openapi';
import { compoundCrises, selectCrises, type WindowType } from '../analytics/crises';
import { LayerSchema, RegionSchema, WindowSchema } from '../analytics/schemas';
import { access } from '../http/auth';
import { cached, CACHE_TTL } from '../http/cache';
import { answers, createRouter, errors, security } from '../http/openapi';
import { intParam, numberParam } from '../http/params';
import { mapUrl } from './map';

/** Each window's length, for its map link. */
const WINDOW_DAYS: Record<WindowType, number> = { acute: 7, chronic: 30 };

const CrisisSchema = z
  .object({
    country_code: z.string().openapi({ example: 'UA' }),
    region: RegionSchema.nullable(),
    composite_severity: z.number().openapi({
      description: 'min(10, mean of the converging layers’ severities + 0.5·(layer_count − 1)).',
      example: 8.1,
    }),
    layer_count: z.number().int().openapi({ example: 3 }),
    layers: z.array(
      z.object({
        threat_layer: LayerSchema,
        severity: z.number().openapi({ description: '0.6·mean_score + 0.4·max_score.', example: 7.6 }),
        share: z
          .number()
          .openapi({ description: 'This layer’s part of the summed severities.', example: 0.36 }),
        signal_count: z
          .number()
          .int()
          .openapi({ description: 'Events on this layer (each once, not its echoes).', example: 14 }),
        crisis_count: z.number().int().openapi({ description: 'Events of crisis valence.', example: 9 }),
        mean_score: z
          .number()
          .openapi({ description: 'Mean score of the events’ first reports.', example: 7.1 }),
        max_score: z.number().openapi({ description: 'Strongest score of any report.', example: 9.2 }),
      }),
    ),
    map_url: z.string().openapi({
      description:
        "The world map of this country's events in the window (public; absolute under `PUBLIC_BASE_URL`).",
      example: '/api/v1/map.svg?country=UA&days=7',
    }),
  })
  .openapi('CompoundCrisis');

const crisesRoute = createRoute({
  method: 'get',
  path: '/api/v1/compound-crises',
  tags: ['Analytics'],
  summary: 'Compound crises',
  description:
    'Countries where 2 or more layers each reach severity 5 with at least 3 events (not echoes), per window (`acute` 7 days, `chronic` 30 days). Cached 5 minutes.',
  security,
  middleware: [access('key')] as const,
  ...answers({ cached: true }),
  request: {
    query: z.object({
      window_type: z
        .enum(['acute', 'chronic'], { message: 'must be acute or chronic' })
        .optional()
        .openapi({ description: '`acute` (7 days) or `chronic` (30 days); omitted returns both.' }),
      min_score: numberParam(0, 10)
        .default(0)
        .openapi({ type: 'number', description: 'Minimum composite severity, 0–10.', example: 6 }),
      limit: intParam(1, 100)
        .default(50)
        .openapi({ type: 'integer', description: 'Crises per window, 1–100.', example: 50 }),
    }),
  },
  responses: {
    200: {
      description: 'Crises per window, most severe first.',
      content: {
        'application/json': {
          schema: z
            .object({
              data: z.array(
                z.object({
                  window_type: z.enum(['acute', 'chronic']),
                  window: WindowSchema,
                  map_url: z.string().openapi({
                    description:
                      "The world map of the window's events (`days=7` or `days=30`), public; absolute under `PUBLIC_BASE_URL`.",
                    example: '/api/v1/map.svg?days=7',
                  }),
                  total: z.number().int().openapi({ description: 'Crises in the window before `limit`.' }),
                  data: z.array(CrisisSchema),
                }),
              ),
            })
            .openapi('CompoundCrisisList'),
        },
      },
    },
    ...errors(400, 401, 429, 503),
  },
});

export const crisisRoutes = createRouter().openapi(crisesRoute, async (c) => {
  const q = c.req.valid('query');
  const { db, now } = c.env.deps;
  const windows: WindowType[] = q.window_type ? [q.window_type] : ['acute', 'chronic'];
  // One store entry whatever the parameters (both windows, every crisis); they select from it.
  const all = await cached(
    c,
    'compound-crises:v2',
    CACHE_TTL.compoundCrises,
    () => compoundCrises(db, now()),
    'private',
  );
  const data = selectCrises(all, { windows, minScore: q.min_score, limit: q.limit }).map((w) => {
    const days = WINDOW_DAYS[w.window_type];
    return {
      ...w,
      map_url: mapUrl(c, { days }),
      data: w.data.map((crisis) => ({
        ...crisis,
        map_url: mapUrl(c, { country: crisis.country_code, days }),
      })),
    };
  });
  return c.json({ data }, 200);
});
