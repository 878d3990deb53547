import { createRoute, z } from '@hono/zod-openapi';
import { etag } from 'hono/etag';
import { compoundCrises, selectCrises, type WindowType } from '../analytics/crises';
import { listSnapshots } from '../analytics/snapshots';
import { listSources } from '../analytics/sources';
import { platformStats } from '../analytics/stats';
import { trending } from '../analytics/trending';
import { DAY_MS, windowOf } from '../analytics/sql';
import { access } from '../http/auth';
import { cached, CACHE_TTL } from '../http/cache';
import { createRouter, errors, security } from '../http/openapi';
import { intParam, isoParam, layerParam, numberParam, regionParam } from '../http/params';
import { invalidRequest } from '../http/problem';
import { LAYERS, REGIONS, SOURCE_TIERS } from '../vocab';

/** The time span an analytic answer covers. */
export const WindowSchema = z
  .object({
    start: z.string().openapi({ example: '2026-11-21T06:00:00.000Z' }),
    end: z.string().openapi({ example: '2026-11-22T06:00:00.000Z' }),
  })
  .openapi('Window', { description: 'The time span the answer covers (start exclusive unless stated).' });

const Layer = z.enum(LAYERS).openapi({ example: 'cyber' });
const Region = z.enum(REGIONS).openapi({ example: 'Europe' });

// ── snapshots ────────────────────────────────────────────────────────────────

const SnapshotSchema = z
  .object({
    bucket: z
      .string()
      .openapi({ description: 'Start of the UTC hour.', example: '2026-11-22T05:00:00.000Z' }),
    region: Region.nullable().openapi({ description: 'Null for signals without a country.' }),
    threat_layer: Layer,
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

// ── sources ──────────────────────────────────────────────────────────────────

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

// ── trending ─────────────────────────────────────────────────────────────────

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
    layers: z.array(z.object({ threat_layer: Layer, ...trendFields })),
    countries: z.array(
      z.object({
        country_code: z.string().openapi({ example: 'UA' }),
        region: Region.nullable(),
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
  responses: {
    200: {
      description: 'Trending entries with the counts behind each ratio.',
      content: { 'application/json': { schema: TrendingSchema } },
    },
    ...errors(401, 429, 503),
  },
});

// ── compound crises ──────────────────────────────────────────────────────────

const CrisisSchema = z
  .object({
    country_code: z.string().openapi({ example: 'UA' }),
    region: Region.nullable(),
    composite_severity: z.number().openapi({
      description: 'min(10, mean of the converging layers’ severities + 0.5·(layer_count − 1)).',
      example: 8.1,
    }),
    layer_count: z.number().int().openapi({ example: 3 }),
    layers: z.array(
      z.object({
        threat_layer: Layer,
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

// ── stats ────────────────────────────────────────────────────────────────────

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
    layers: z.array(z.object({ threat_layer: Layer, total: z.number().int(), last_24h: z.number().int() })),
  })
  .openapi('PlatformStats');

const statsRoute = createRoute({
  method: 'get',
  path: '/api/v1/stats',
  tags: ['Analytics'],
  summary: 'Platform statistics',
  description:
    'Signal volumes, sources by tier, language coverage and layer breakdown. Public; cached 10 minutes.',
  middleware: [access('public'), etag()] as const,
  responses: {
    200: { description: 'The statistics.', content: { 'application/json': { schema: StatsSchema } } },
    304: { description: 'Not modified: `If-None-Match` matched the `ETag`.' },
    ...errors(401, 429, 503),
  },
});

export const analyticsRoutes = createRouter()
  .openapi(snapshotsRoute, async (c) => {
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
  })
  .openapi(sourcesRoute, async (c) => {
    return c.json({ data: await listSources(c.env.deps.db, c.req.valid('query')) }, 200);
  })
  .openapi(trendingRoute, async (c) => {
    const { db, now } = c.env.deps;
    const value = await cached(c, 'trending', CACHE_TTL.trending, () => trending(db, now()), 'private');
    return c.json(value as z.infer<typeof TrendingSchema>, 200);
  })
  .openapi(crisesRoute, async (c) => {
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
    return c.json({ data: selectCrises(all, { windows, minScore: q.min_score, limit: q.limit }) }, 200);
  })
  .openapi(statsRoute, async (c) => {
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
    return c.json(value as z.infer<typeof StatsSchema>, 200);
  });
