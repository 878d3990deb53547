import { createRoute, z } from '@hono/zod-openapi';
import { access } from '../http/auth';
import { createRouter, errors, pagination, PaginationSchema, security } from '../http/openapi';
import {
  bboxParam,
  booleanParam,
  countryParam,
  intParam,
  isoParam,
  layersParam,
  numberParam,
  regionParam,
  textParam,
  valenceParam,
} from '../http/params';
import { invalidRequest, notFound } from '../http/problem';
import { csvHeaders, signalsCsv } from '../signals/csv';
import { getSignalDetail, SignalDetailSchema } from '../signals/detail';
import { listSignalPage } from '../signals/page';
import type { SignalFilter } from '../signals/query';
import { SignalSchema } from '../signals/serialize';

/** The filter parameters shared by /signals (and, in part, feeds and exports). */
export const SignalFilterQuery = z.object({
  layers: layersParam()
    .optional()
    .openapi({ description: 'Comma-separated threat layers.', example: 'cyber,military' }),
  min_score: numberParam(0, 10)
    .optional()
    .openapi({ description: 'Minimum significance score, 0–10.', example: '6.5' }),
  region: regionParam().optional().openapi({ example: 'Europe' }),
  country: countryParam().optional().openapi({ description: 'ISO 3166-1 alpha-2 code.', example: 'UA' }),
  city: textParam(100)
    .optional()
    .openapi({ description: 'Partial, case-insensitive match on the city name.', example: 'kyiv' }),
  start: isoParam().optional().openapi({
    description: 'Only signals published at or after this time.',
    example: '2026-11-01T00:00:00Z',
  }),
  end: isoParam().optional().openapi({
    description: 'Only signals published at or before this time.',
    example: '2026-11-22T00:00:00Z',
  }),
  search: textParam(200).optional().openapi({
    description:
      'Full-text search in websearch syntax: words are ANDed, `OR`, `"phrases"` and `-exclusions` work.',
    example: '"power grid" OR substation',
  }),
  valence: valenceParam().optional().openapi({ example: 'crisis' }),
  bbox: bboxParam().optional().openapi({
    description: '`minLat,minLng,maxLat,maxLng`: only signals with coordinates inside the box.',
    example: '44,22,53,41',
  }),
  anomaly: booleanParam()
    .optional()
    .openapi({ description: '`true`: only anomalous signals; `false`: only the others.', example: 'true' }),
});

type FilterQuery = z.infer<typeof SignalFilterQuery>;

/** Cross-field rules and the mapping from query names to the domain filter. */
export function toSignalFilter(q: FilterQuery): SignalFilter {
  if (q.start && q.end && q.start > q.end) {
    throw invalidRequest([{ path: 'start', message: 'must not be after end' }]);
  }
  return {
    layers: q.layers,
    minScore: q.min_score,
    region: q.region,
    country: q.country,
    city: q.city,
    start: q.start,
    end: q.end,
    search: q.search,
    valence: q.valence,
    bbox: q.bbox,
    anomaly: q.anomaly,
  };
}

const ListQuery = SignalFilterQuery.extend({
  limit: intParam(1, 100)
    .default(50)
    .openapi({ type: 'integer', description: 'Page size, 1–100.', example: 50 }),
  offset: intParam(0, 10_000_000).default(0).openapi({ type: 'integer', example: 0 }),
  format: z.enum(['json', 'csv'], { message: 'must be json or csv' }).default('json').openapi({
    description: '`json` (default) or `csv` (RFC 4180, every field).',
  }),
});

const listRoute = createRoute({
  method: 'get',
  path: '/api/v1/signals',
  tags: ['Signals'],
  summary: 'List signals',
  description:
    'Signals ordered by significance score (desc), then publication time (desc), then id, so pages are stable.',
  security,
  middleware: [access('key')] as const,
  request: { query: ListQuery },
  responses: {
    200: {
      description: 'A page of signals (JSON), or every field as CSV with `format=csv`.',
      content: {
        'application/json': {
          schema: z
            .object({ data: z.array(SignalSchema), pagination: PaginationSchema })
            .openapi('SignalPage'),
        },
        'text/csv': { schema: z.string() },
      },
    },
    ...errors(400, 401, 429, 503),
  },
});

const detailRoute = createRoute({
  method: 'get',
  path: '/api/v1/signals/{id}',
  tags: ['Signals'],
  summary: 'Get one signal',
  description: 'Full detail of one signal, with extracted entities and source metadata.',
  security,
  middleware: [access('key')] as const,
  request: {
    params: z.object({
      id: z
        .uuid({ message: 'must be a UUID' })
        .openapi({ param: { name: 'id', in: 'path' }, example: '3f1c2a9e-7b4d-4e8a-9c1f-2d6b8a0e5f31' }),
    }),
  },
  responses: {
    200: { description: 'The signal.', content: { 'application/json': { schema: SignalDetailSchema } } },
    ...errors(400, 401, 404, 429, 503),
  },
});

export const signalRoutes = createRouter()
  .openapi(listRoute, async (c) => {
    const { limit, offset, format, ...query } = c.req.valid('query');
    const page = await listSignalPage(c.env.deps.db, toSignalFilter(query), { limit, offset }, format);
    if (format === 'csv') return c.body(signalsCsv(page.data), 200, csvHeaders('signals.csv'));
    const envelope = JSON.stringify(pagination(limit, offset, page.hasMore));
    return c.body(`{"data":${page.data},"pagination":${envelope}}`, 200, {
      'Content-Type': 'application/json',
    });
  })
  .openapi(detailRoute, async (c) => {
    const detail = await getSignalDetail(c.env.deps.db, c.req.valid('param').id);
    if (!detail) throw notFound('signal');
    return c.json(detail, 200);
  });
