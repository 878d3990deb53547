import { createRoute, z } from '@hono/zod-openapi';
import { access } from '../http/auth';
import { answers, createRouter, errors, pagination, PaginationSchema, security } from '../http/openapi';
import {
  bboxParam,
  booleanParam,
  countryParam,
  distinctParam,
  isoParam,
  layersParam,
  numberParam,
  pageParams,
  regionParam,
  textParam,
  valenceParam,
} from '../http/params';
import { invalidRequest, notFound } from '../http/problem';
import { utf8Body } from '../http/text-body';
import { csvHeaders, signalsCsvParts } from '../signals/csv';
import { CursorError, signalSeekKey } from '../signals/cursor';
import { getSignalDetail, SignalDetailSchema } from '../signals/detail';
import { GEOJSON_CONTENT_TYPE, geoJsonCollection, SignalFeatureSchema } from '../signals/geojson';
import { listSignalPage } from '../signals/page';
import { searchHasPositiveTerm, type SignalFilter } from '../signals/query';
import { SignalSchema } from '../signals/serialize';

/** The filter parameters shared by /signals (and, in part, feeds and exports). */
export const SignalFilterQuery = z.object({
  layers: layersParam()
    .optional()
    .openapi({ description: 'Comma-separated threat layers.', example: 'cyber,military' }),
  min_score: numberParam(0, 10)
    .optional()
    .openapi({ description: 'Minimum significance score, 0–10.', example: 6.5 }),
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
  distinct: distinctParam().optional(),
});

type FilterQuery = z.infer<typeof SignalFilterQuery>;

/** Cross-field rules and the mapping from query names to the domain filter. */
export function toSignalFilter(q: FilterQuery): SignalFilter {
  if (q.start && q.end && q.start > q.end) {
    throw invalidRequest([{ path: 'start', message: 'must not be after end' }]);
  }
  if (q.search && !searchHasPositiveTerm(q.search)) {
    throw invalidRequest([
      {
        path: 'search',
        message:
          'needs a word or phrase to look for in every alternative: exclusions alone (-word) would match nearly every signal and cannot use the search index',
      },
    ]);
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
    distinct: q.distinct,
  };
}

const ListQuery = SignalFilterQuery.extend({
  updated_since: isoParam().optional().openapi({
    description:
      'Sync: only signals changed (ingested, revised or retracted) at or after this time, oldest change first (then id), retracted ones included with `retracted_at`. Page with `cursor`.',
    example: '2026-11-21T08:43:00.000Z',
  }),
  ...pageParams({
    defaultLimit: 50,
    cursor: '`pagination.next_cursor` of the previous page, with the same filters; not with `offset`.',
  }),
  format: z
    .enum(['json', 'csv', 'geojson'], { message: 'must be json, csv or geojson' })
    .default('json')
    .openapi({
      description:
        '`json` (default), `csv` (RFC 4180, every field) or `geojson` (an RFC 7946 FeatureCollection, `application/geo+json`).',
    }),
});

const listRoute = createRoute({
  method: 'get',
  path: '/api/v1/signals',
  tags: ['Signals'],
  summary: 'List signals',
  description:
    'Signals ordered by significance score (desc), then publication time (desc), then id, so pages are stable; with `updated_since`, by change time then id. Page with `cursor` (`pagination.next_cursor`) to any depth.',
  security,
  middleware: [access('key')] as const,
  ...answers({ download: true, csvCursor: true }),
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
        [GEOJSON_CONTENT_TYPE]: {
          schema: z
            .object({
              type: z.literal('FeatureCollection'),
              features: z.array(SignalFeatureSchema),
              pagination: PaginationSchema,
            })
            .openapi('SignalFeatureCollection'),
        },
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

/** The seek key of `cursor` for `filter`; a 400 naming `cursor` if it is not one, or comes with `offset`. */
export function cursorSeekKey(cursor: string, filter: SignalFilter, offset: string | undefined) {
  if (offset !== undefined) {
    throw invalidRequest([
      {
        path: 'cursor',
        message: 'cannot be combined with offset: a cursor already says where the page starts',
      },
    ]);
  }
  try {
    return signalSeekKey(cursor, filter);
  } catch (error) {
    if (error instanceof CursorError) throw invalidRequest([{ path: 'cursor', message: error.message }]);
    throw error;
  }
}

export const signalRoutes = createRouter()
  .openapi(listRoute, async (c) => {
    const { limit, offset = 0, cursor, format, updated_since, ...query } = c.req.valid('query');
    const filter = { ...toSignalFilter(query), updatedSince: updated_since };
    if (filter.distinct && updated_since) {
      throw invalidRequest([
        {
          path: 'distinct',
          message: 'cannot be combined with updated_since: sync lists every change of every signal',
        },
      ]);
    }
    const page = await listSignalPage(
      c.env.deps.db,
      filter,
      {
        limit,
        offset,
        after: cursor === undefined ? undefined : cursorSeekKey(cursor, filter, c.req.query('offset')),
      },
      format,
    );
    if (format === 'csv') {
      // CSV has no envelope: the next page's cursor travels in a header.
      const next: Record<string, string> = page.nextCursor ? { 'X-Next-Cursor': page.nextCursor } : {};
      return c.body(utf8Body(...signalsCsvParts(page.data)), 200, { ...csvHeaders('signals.csv'), ...next });
    }
    const envelope = JSON.stringify(
      pagination(limit, offset, page.hasMore, page.nextCursor, cursor !== undefined),
    );
    if (format === 'geojson') {
      return c.body(utf8Body(geoJsonCollection(page.data, `"pagination":${envelope}`)), 200, {
        'Content-Type': GEOJSON_CONTENT_TYPE,
      });
    }
    return c.body(utf8Body('{"data":', page.data, ',"pagination":', envelope, '}'), 200, {
      'Content-Type': 'application/json',
    });
  })
  .openapi(detailRoute, async (c) => {
    const detail = await getSignalDetail(c.env.deps.db, c.req.valid('param').id);
    if (!detail) throw notFound('signal');
    return c.json(detail, 200);
  });
