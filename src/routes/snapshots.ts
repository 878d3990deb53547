import { createRoute, z } from '@hono/zod-openapi';
import { LayerSchema, RegionSchema, WindowSchema } from '../analytics/schemas';
import { listSnapshots } from '../analytics/snapshots';
import { DAY_MS, windowOf } from '../analytics/sql';
import { access } from '../http/auth';
import { createRouter, errors, security } from '../http/openapi';
import { intParam, isoParam, layerParam, regionParam } from '../http/params';
import { invalidRequest } from '../http/problem';

const SnapshotSchema = z
  .object({
    bucket: z
      .string()
      .openapi({ description: 'Start of the UTC hour.', example: '2026-11-22T05:00:00.000Z' }),
    region: RegionSchema.nullable().openapi({ description: 'Null for signals without a country.' }),
    threat_layer: LayerSchema,
    composite_score: z.number().openapi({
      description: '0.5·mean_score + 0.3·max_score + 2·crisis_count/signal_count (0–10).',
      example: 6.42,
    }),
    signal_count: z.number().int().openapi({ example: 12 }),
    mean_score: z.number().openapi({ example: 6.1 }),
    max_score: z.number().openapi({ example: 8.7 }),
    crisis_count: z.number().int().openapi({ example: 5 }),
    anomaly_count: z.number().int().openapi({ example: 1 }),
  })
  .openapi('Snapshot');

const snapshotsRoute = createRoute({
  method: 'get',
  path: '/api/v1/snapshots',
  tags: ['Analytics'],
  summary: 'Composite threat scores by region, layer and hour',
  description:
    'Hourly buckets, newest first, from aggregates kept current as signals arrive. Defaults to the 24 hours before `end` (default now).',
  security,
  middleware: [access('key')] as const,
  request: {
    query: z.object({
      region: regionParam().optional().openapi({ example: 'Europe' }),
      layer: layerParam().optional().openapi({ example: 'military' }),
      start: isoParam()
        .optional()
        .openapi({ description: 'Start of the window.', example: '2026-11-21T00:00:00Z' }),
      end: isoParam()
        .optional()
        .openapi({ description: 'End of the window.', example: '2026-11-22T00:00:00Z' }),
      limit: intParam(1, 500)
        .default(100)
        .openapi({ type: 'integer', description: 'Buckets to return, 1–500.', example: 100 }),
    }),
  },
  responses: {
    200: {
      description: 'Snapshots in the window.',
      content: {
        'application/json': {
          schema: z
            .object({
              window: WindowSchema,
              granularity: z.literal('hour'),
              data: z.array(SnapshotSchema),
              has_more: z
                .boolean()
                .openapi({ description: 'More buckets exist in the window than `limit`.' }),
            })
            .openapi('SnapshotList'),
        },
      },
    },
    ...errors(400, 401, 429, 503),
  },
});

export const snapshotRoutes = createRouter().openapi(snapshotsRoute, async (c) => {
  const q = c.req.valid('query');
  const end = q.end ?? c.env.deps.now();
  const start = q.start ?? new Date(end.getTime() - DAY_MS);
  if (start > end) throw invalidRequest([{ path: 'start', message: 'must not be after end' }]);
  const result = await listSnapshots(c.env.deps.db, {
    region: q.region,
    layer: q.layer,
    start,
    end,
    limit: q.limit,
  });
  const bucketStart = new Date(Math.floor(start.getTime() / 3_600_000) * 3_600_000);
  return c.json(
    {
      window: windowOf(bucketStart, end),
      granularity: 'hour' as const,
      data: result.rows,
      has_more: result.hasMore,
    },
    200,
  );
});
