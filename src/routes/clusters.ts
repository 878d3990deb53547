import { createRoute, z } from '@hono/zod-openapi';
import { CLUSTERING, narrativeClusters, selectClusters } from '../analytics/clusters';
import { LayerSchema, WindowSchema } from '../analytics/schemas';
import { access } from '../http/auth';
import { cached, CACHE_TTL } from '../http/cache';
import { edgeCache } from '../http/edge-cache';
import { dataEtag, ifNoneMatchHits } from '../http/etag';
import { answers, createRouter, errors } from '../http/openapi';
import { countryParam, intParam, layerParam } from '../http/params';

const Named = z.object({ name: z.string(), signal_count: z.number().int() });

const ClusterSchema = z
  .object({
    threat_layer: LayerSchema,
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
  middleware: [edgeCache(), access('public')] as const,
  ...answers({ cached: true }),
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

export const clusterRoutes = createRouter().openapi(clustersRoute, async (c) => {
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
});
