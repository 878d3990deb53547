import { createRoute, z } from '@hono/zod-openapi';
import { BRIEF, watchBrief } from '../analytics/brief';
import { CLUSTERING, narrativeClusters, selectClusters } from '../analytics/clusters';
import { entityView } from '../analytics/entity';
import { access } from '../http/auth';
import { cached, CACHE_TTL } from '../http/cache';
import { dataEtag, ifNoneMatchHits } from '../http/etag';
import { createRouter, errors, pagination, PaginationSchema, security } from '../http/openapi';
import { countryParam, cursorParam, intParam, layerParam, offsetParam } from '../http/params';
import { ApiError, invalidRequest } from '../http/problem';
import { CursorError } from '../signals/cursor';
import { LAYERS } from '../vocab';
import { WindowSchema } from './analytics';

const Layer = z.enum(LAYERS).openapi({ example: 'cyber' });
const Named = z.object({ name: z.string(), signal_count: z.number().int() });

// ── clusters ─────────────────────────────────────────────────────────────────

const ClusterSchema = z
  .object({
    threat_layer: Layer,
    score: z.number().openapi({ description: 'mean_score · ln(1 + signal_count) · lift.', example: 14.2 }),
    signal_count: z.number().int().openapi({ example: 9 }),
    mean_score: z.number().openapi({ example: 7.4 }),
    layer_mean_score: z
      .number()
      .openapi({ description: 'Mean score of the layer in the window.', example: 5.1 }),
    lift: z.number().openapi({ description: 'mean_score / layer_mean_score.', example: 1.451 }),
    headline: z.string().openapi({ description: 'Title of the strongest signal.' }),
    top_entities: z.array(Named).openapi({ example: [{ name: 'Kharkiv', signal_count: 8 }] }),
    top_terms: z.array(Named).openapi({ example: [{ name: 'shelling', signal_count: 6 }] }),
    countries: z.array(z.object({ country_code: z.string(), signal_count: z.number().int() })),
    first_published_at: z.string(),
    last_published_at: z.string(),
    signal_ids: z.array(z.string()).openapi({
      description: `The cluster's strongest signals, at most ${CLUSTERING.maxSignalIds} (\`signal_count\` counts them all).`,
    }),
  })
  .openapi('NarrativeCluster');

const clustersRoute = createRoute({
  method: 'get',
  path: '/api/v1/clusters',
  tags: ['Analytics'],
  summary: 'Narrative clusters',
  description: `Signals of one layer grouped by shared entities and title terms and scored by local significance, over the strongest ${CLUSTERING.maxSignals} signals of the window (by score). At most ${CLUSTERING.maxClusters} clusters, best first, each listing at most ${CLUSTERING.maxSignalIds} signal ids. Public; cached 5 minutes, with an ETag that follows the data (not the time of the request).`,
  middleware: [access('public')] as const,
  request: {
    query: z.object({
      days: intParam(1, 30)
        .default(3)
        .openapi({ type: 'integer', description: 'Lookback in days, 1–30.', example: 3 }),
      min_signals: intParam(2, 1000)
        .default(2)
        .openapi({ type: 'integer', description: 'Minimum signals per cluster (2 or more).', example: 2 }),
      threat_layer: layerParam().optional().openapi({ example: 'military' }),
      country_code: countryParam()
        .optional()
        .openapi({ description: 'ISO 3166-1 alpha-2 code.', example: 'UA' }),
    }),
  },
  responses: {
    200: {
      description: 'The clusters.',
      content: {
        'application/json': {
          schema: z
            .object({
              window: WindowSchema,
              signals_considered: z
                .number()
                .int()
                .openapi({
                  description: `Signals clustered: the strongest of the window, at most ${CLUSTERING.maxSignals}.`,
                }),
              total: z.number().int().openapi({ description: 'Clusters found before the cap of 50.' }),
              data: z.array(ClusterSchema),
            })
            .openapi('NarrativeClusterList'),
        },
      },
    },
    304: { description: 'Not modified: `If-None-Match` matched the `ETag`.' },
    ...errors(400, 401, 429, 503),
  },
});

// ── entity ───────────────────────────────────────────────────────────────────

const EntityViewSchema = z
  .object({
    entity: z.object({
      name: z.string().openapi({ example: 'Kharkiv' }),
      types: z.array(z.string()).openapi({ example: ['location'] }),
    }),
    window: WindowSchema,
    total_signals: z.number().int(),
    layers: z.array(z.object({ threat_layer: z.string(), signal_count: z.number().int() })),
    timeline: z.array(
      z.object({ date: z.string().openapi({ example: '2026-11-21' }), signal_count: z.number().int() }),
    ),
    graph: z.object({
      nodes: z.array(
        z.object({ id: z.string(), name: z.string(), type: z.string(), signal_count: z.number().int() }),
      ),
      edges: z.array(
        z.object({
          source: z.string(),
          target: z.string(),
          weight: z.number().int().openapi({ description: 'Signals naming both entities.' }),
        }),
      ),
    }),
    data: z.array(
      z.object({
        id: z.string(),
        threat_layer: z.string(),
        significance_score: z.number(),
        signal_valence: z.string(),
        title: z.string(),
        country_codes: z.array(z.string()),
        published_at: z.string(),
        source_url: z.string(),
        mentions: z.number().int(),
      }),
    ),
    pagination: PaginationSchema,
  })
  .openapi('EntityView');

const entityRoute = createRoute({
  method: 'get',
  path: '/api/v1/entity',
  tags: ['Analytics'],
  summary: 'Entity view',
  description:
    'Signals mentioning an entity (exact name, any case), newest first, with layer breakdown, daily timeline and the co-mention graph over the lookback.',
  security,
  middleware: [access('key')] as const,
  request: {
    query: z.object({
      name: z
        .string({ message: 'is required' })
        .trim()
        .min(2, 'must be at least 2 characters')
        .max(200, 'must be at most 200 characters')
        .openapi({ example: 'Kharkiv' }),
      days: intParam(1, 365)
        .default(30)
        .openapi({ type: 'integer', description: 'Lookback, 1–365 days.', example: 30 }),
      limit: intParam(1, 100).default(50).openapi({ type: 'integer', example: 50 }),
      offset: offsetParam().optional().openapi({
        type: 'integer',
        description: 'Rows to skip, 0–10,000 (default 0). Page deeper with `cursor`.',
        example: 0,
      }),
      cursor: cursorParam().optional().openapi({
        description:
          '`pagination.next_cursor` of the previous page, with the same `name` and `days`; not with `offset`.',
      }),
    }),
  },
  responses: {
    200: { description: 'The entity view.', content: { 'application/json': { schema: EntityViewSchema } } },
    ...errors(400, 401, 404, 429, 503),
  },
});

// ── brief ────────────────────────────────────────────────────────────────────

const ids = z.array(z.string()).openapi({ description: 'Signals this item rests on.' });

const BriefSchema = z
  .object({
    window: WindowSchema,
    generated_at: z.string(),
    generator: z.enum(['llm', 'heuristic']).openapi({ description: 'What wrote the brief.' }),
    model: z.string().nullable(),
    fallback_reason: z.string().nullable().openapi({ description: 'Why the heuristic was used, if it was.' }),
    headline: z.string(),
    executive_summary: z.string(),
    active_theaters: z.array(
      z.object({
        name: z.string(),
        country_codes: z.array(z.string()),
        summary: z.string(),
        signal_ids: ids,
      }),
    ),
    emerging_threats: z.array(
      z.object({
        title: z.string(),
        threat_layer: z.string().nullable(),
        summary: z.string(),
        signal_ids: ids,
      }),
    ),
    key_entities: z.array(
      z.object({
        name: z.string(),
        type: z.string().nullable(),
        signal_count: z.number().int().nullable(),
        note: z.string().nullable(),
      }),
    ),
    signal_ids: z.array(z.string()).openapi({ description: 'Every signal the brief cites.' }),
    numbers: z.object({
      signal_count: z.number().int(),
      event_count: z
        .number()
        .int()
        .openapi({ description: 'Events among those signals: a story told by several outlets counts once.' }),
      crisis_count: z.number().int(),
      anomaly_count: z.number().int(),
      country_count: z.number().int(),
    }),
  })
  .openapi('WatchBrief');

const briefRoute = createRoute({
  method: 'get',
  path: '/api/v1/brief',
  tags: ['Analytics'],
  summary: 'Watch brief (past 4 hours)',
  description:
    'Written by the configured LLM (strict JSON, validated, 5 s limit), else by a heuristic over the same data; `generator` says which. Cached 15 minutes.',
  security,
  middleware: [access('key')] as const,
  responses: {
    200: { description: 'The brief.', content: { 'application/json': { schema: BriefSchema } } },
    ...errors(401, 429, 503),
  },
});

export const insightRoutes = createRouter()
  .openapi(clustersRoute, async (c) => {
    const q = c.req.valid('query');
    const { db, now } = c.env.deps;
    // One store entry per selection of signals; `min_signals` is applied to it afterwards.
    const key = `clusters:${q.days}:${q.threat_layer ?? '*'}:${q.country_code ?? '*'}`;
    const computed = await cached(
      c,
      key,
      CACHE_TTL.clusters,
      () => narrativeClusters(db, now(), { days: q.days, layer: q.threat_layer, country: q.country_code }),
      'public',
    );
    const answer = {
      signals_considered: computed.signals_considered,
      ...selectClusters(computed.clusters, q.min_signals),
    };
    const tag = await dataEtag(answer);
    c.header('ETag', tag);
    if (ifNoneMatchHits(c.req.header('if-none-match'), tag)) return c.body(null, 304);
    return c.json(
      { window: computed.window, ...answer } as z.infer<
        (typeof clustersRoute.responses)[200]['content']['application/json']['schema']
      >,
      200,
    );
  })
  .openapi(entityRoute, async (c) => {
    const { offset = 0, ...q } = c.req.valid('query');
    if (q.cursor !== undefined && c.req.query('offset') !== undefined) {
      throw invalidRequest([
        {
          path: 'cursor',
          message: 'cannot be combined with offset: a cursor already says where the page starts',
        },
      ]);
    }
    const view = await entityView(c.env.deps.db, c.env.deps.now(), { ...q, offset }).catch(
      (error: unknown) => {
        if (error instanceof CursorError) throw invalidRequest([{ path: 'cursor', message: error.message }]);
        throw error;
      },
    );
    if (!view) throw new ApiError(404, 'not_found', `No entity named "${q.name}".`);
    const { signals, hasMore, nextCursor, ...rest } = view;
    return c.json(
      {
        ...rest,
        data: signals,
        pagination: pagination(q.limit, offset, hasMore, nextCursor, q.cursor !== undefined),
      },
      200,
    );
  })
  .openapi(briefRoute, async (c) => {
    const { db, now, config, log } = c.env.deps;
    const llm = config.BRIEF_LLM_URL
      ? { url: config.BRIEF_LLM_URL, apiKey: config.BRIEF_LLM_API_KEY, model: config.BRIEF_LLM_MODEL }
      : undefined;
    const value = await cached(
      c,
      'brief',
      CACHE_TTL.brief,
      () => watchBrief(db, now(), { fetch: c.env.deps.fetch, llm, log }),
      'private',
      // Another process holding the lock may be waiting on the LLM for its whole time limit.
      BRIEF.llmTimeoutMs + 2000,
    );
    return c.json(value, 200);
  });
