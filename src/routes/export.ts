import { createRoute, z } from '@hono/zod-openapi';
import { access } from '../http/auth';
import { edgeCache } from '../http/edge-cache';
import { cachedPublicRead, canonicalQuery, publicCacheKey } from '../http/etag';
import { answers, createRouter, errors } from '../http/openapi';
import {
  countryParam,
  distinctParam,
  layerParam,
  layersParam,
  numberParam,
  valenceParam,
} from '../http/params';
import { invalidRequest } from '../http/problem';
import { csvHeaders, signalsCsv } from '../signals/csv';
import { GEOJSON_CONTENT_TYPE, geoJsonCollection, SignalFeatureSchema } from '../signals/geojson';
import { listSignalPage } from '../signals/page';
import { SignalSchema } from '../signals/serialize';

const EXPORT_MAX_ROWS = 1000;
const EXPORT_DEFAULT_ROWS = 200;
/** Exports are larger and change less often than feeds matter: shared for a minute too. */
const EXPORT_MAX_AGE = 60;

const ExportQuery = z.object({
  layer: layerParam().optional().openapi({ description: 'One threat layer.', example: 'cyber' }),
  country: countryParam()
    .optional()
    .openapi({ description: 'ISO 3166-1 alpha-2 code, matched within `country_codes`.', example: 'UA' }),
  valence: valenceParam().optional().openapi({ example: 'crisis' }),
  minScore: numberParam(0, 10)
    .optional()
    .openapi({ description: 'Minimum significance score, 0–10 (default 0).', example: 6 }),
  // The /signals spellings, since users move between the two: without them `layers=cyber`
  // would be refused here (or, before unknown parameters were refused, silently ignored).
  layers: layersParam().optional().openapi({
    description:
      'Comma-separated threat layers, as /api/v1/signals spells it (an alias of `layer` that takes several). Give `layer` or `layers`, not both.',
    example: 'cyber,military',
  }),
  min_score: numberParam(0, 10).optional().openapi({
    description: 'As /api/v1/signals spells it: an alias of `minScore`. Give one of the two.',
    example: 6,
  }),
  distinct: distinctParam().optional(),
  format: z
    .enum(['csv', 'json', 'geojson'], { message: 'must be csv, json or geojson' })
    .default('csv')
    .openapi({
      description:
        '`csv` (default; RFC 4180), `json` or `geojson` (an RFC 7946 FeatureCollection, `application/geo+json`).',
    }),
  limit: z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform((value) => Math.min(Number(value), EXPORT_MAX_ROWS))
    .pipe(z.number().int().min(1, 'must be at least 1'))
    .default(EXPORT_DEFAULT_ROWS)
    .openapi({
      type: 'integer',
      minimum: 1,
      description: `Rows, default ${EXPORT_DEFAULT_ROWS}; anything above ${EXPORT_MAX_ROWS} is capped at ${EXPORT_MAX_ROWS}.`,
      example: 500,
    }),
});

const EXPORT_PARAMS = Object.keys(ExportQuery.shape);

/** A filter given under both of its spellings is refused rather than one silently winning. */
function refuseBoth(query: Record<string, unknown>, first: string, second: string): void {
  if (query[first] === undefined || query[second] === undefined) return;
  throw invalidRequest(
    [{ path: second, message: `give \`${first}\` or \`${second}\`, not both` }],
    `${first} and ${second} are two spellings of one filter; give one.`,
  );
}

const ExportJsonSchema = z
  .object({
    data: z.array(SignalSchema),
    count: z.number().int().openapi({ description: 'Rows in `data`.', example: 200 }),
    limit: z.number().int().openapi({ description: 'The row limit applied (after capping).', example: 200 }),
  })
  .openapi('SignalExport');

const exportRoute = createRoute({
  method: 'get',
  path: '/api/export',
  tags: ['Feeds and exports'],
  summary: 'Export signals as CSV, JSON or GeoJSON',
  description: `Up to ${EXPORT_MAX_ROWS} signals in the order of /api/v1/signals (score, then newest), as a download. CSV is RFC 4180 (header row, CRLF, UTF-8) with the same columns as /api/v1/signals?format=csv; array fields are joined with \`;\` and text cells that would start with \`= + - @\` get a leading \`'\`. Public under the per-IP limit; sends a strong \`ETag\` and answers \`If-None-Match\` with 304.`,
  middleware: [edgeCache(), access('public')] as const,
  ...answers({ download: true }),
  request: { query: ExportQuery },
  responses: {
    200: {
      description: 'The export, with `Content-Disposition: attachment`.',
      content: {
        'text/csv': { schema: z.string() },
        'application/json': { schema: ExportJsonSchema },
        [GEOJSON_CONTENT_TYPE]: {
          schema: z
            .object({
              type: z.literal('FeatureCollection'),
              features: z.array(SignalFeatureSchema),
              count: z.number().int(),
              limit: z.number().int(),
            })
            .openapi('SignalExportFeatureCollection'),
        },
      },
    },
    304: { description: 'Not modified: the `If-None-Match` ETag is current.' },
    ...errors(400, 401, 429, 503),
  },
});

export const exportRoutes = createRouter().openapi(exportRoute, async (c) => {
  const query = c.req.valid('query');
  refuseBoth(query, 'layer', 'layers');
  refuseBoth(query, 'minScore', 'min_score');
  const { layer, country, valence, distinct, format, limit } = query;
  const layers = query.layers ?? (layer ? [layer] : undefined);
  const minScore = query.minScore ?? query.min_score;
  const { db, now } = c.env.deps;
  const key = await publicCacheKey('export', canonicalQuery(c.req.url, EXPORT_PARAMS));
  return cachedPublicRead(c, { key, maxAge: EXPORT_MAX_AGE }, async () => {
    const filter = { layers, country, valence, minScore, distinct };
    const page = await listSignalPage(db, filter, { limit, offset: 0 }, format);
    const filename = `signals-${now().toISOString().slice(0, 10)}.${format}`;
    if (format === 'csv') return { body: signalsCsv(page.data), headers: csvHeaders(filename) };
    if (format === 'geojson') {
      return {
        body: geoJsonCollection(page.data, `"count":${page.count},"limit":${limit}`),
        headers: {
          'Content-Type': GEOJSON_CONTENT_TYPE,
          'Content-Disposition': `attachment; filename="${filename}"`,
        },
      };
    }
    return {
      body: `{"data":${page.data},"count":${page.count},"limit":${limit}}`,
      headers: {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Disposition': `attachment; filename="${filename}"`,
      },
    };
  });
});
