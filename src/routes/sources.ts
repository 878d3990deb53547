import { createRoute, z } from '@hono/zod-openapi';
import { listSources } from '../analytics/source-stats';
import { access } from '../http/auth';
import { createRouter, errors, security } from '../http/openapi';
import { layerParam, regionParam } from '../http/params';
import { SOURCE_TIERS } from '../vocab';

const CoverageItem = z.object({ name: z.string(), signal_count: z.number().int() });

const SourceSchema = z
  .object({
    id: z.string().openapi({ example: '0b6f0a7e-3a0c-4c1e-9d55-9f5a2c1b7e10' }),
    name: z.string().openapi({ example: 'Example Wire' }),
    url: z.string().nullable().openapi({ example: 'https://wire.example.com' }),
    tier: z.enum(SOURCE_TIERS).or(z.string()).openapi({ example: 'core' }),
    language: z.string().nullable().openapi({ example: 'en' }),
    signal_count: z.number().int().openapi({ example: 412 }),
    last_seen_at: z.string().nullable().openapi({ example: '2026-11-22T05:41:00.000Z' }),
    coverage: z.object({
      regions: z.array(CoverageItem).openapi({ example: [{ name: 'Europe', signal_count: 210 }] }),
      layers: z.array(CoverageItem).openapi({ example: [{ name: 'military', signal_count: 150 }] }),
    }),
    connector: z.string().nullable().openapi({
      description: 'The live-data connector polling it; null for ingest-only sources.',
      example: 'gdacs',
    }),
    enabled: z.boolean().openapi({ description: 'Whether its connector polls it.' }),
    last_polled_at: z.string().nullable().openapi({ description: 'Last poll attempt.' }),
    last_success_at: z.string().nullable().openapi({ description: 'Last poll that fetched and parsed.' }),
    last_error: z
      .string()
      .nullable()
      .openapi({ description: 'Why the last poll failed; null after a success.' }),
    consecutive_failures: z
      .number()
      .int()
      .openapi({ description: 'Failed polls in a row (backoff grows with it).' }),
    last_poll_items: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Items the last successful poll parsed.' }),
    unread_language: z.number().int().openapi({
      description:
        'News items left out because they are in a language the reading rules do not cover and their layer or country could not be read (all time).',
      example: 0,
    }),
  })
  .openapi('Source');

const sourcesRoute = createRoute({
  method: 'get',
  path: '/api/v1/sources',
  tags: ['Analytics'],
  summary: 'Active sources with coverage',
  description:
    'Sources with at least one signal, and every enabled live source (so a failing feed shows), by signal count; coverage by region and layer, and polling health for live sources.',
  security,
  middleware: [access('key')] as const,
  request: {
    query: z.object({
      tier: z
        .enum(SOURCE_TIERS, { message: `must be one of ${SOURCE_TIERS.join(', ')}` })
        .optional()
        .openapi({ example: 'core' }),
      region: regionParam().optional().openapi({ description: 'Sources that have covered this region.' }),
      layer: layerParam().optional().openapi({ description: 'Sources that have covered this layer.' }),
    }),
  },
  responses: {
    200: {
      description: 'The sources.',
      content: {
        'application/json': { schema: z.object({ data: z.array(SourceSchema) }).openapi('SourceList') },
      },
    },
    ...errors(400, 401, 429, 503),
  },
});

export const sourceRoutes = createRouter().openapi(sourcesRoute, async (c) => {
  return c.json({ data: await listSources(c.env.deps.db, c.req.valid('query')) }, 200);
});
