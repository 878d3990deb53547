import { createRoute, z } from '@hono/zod-openapi';
import { MAP_THEMES, renderMap, type MapTheme } from '../embed/map';
import { mapEvents, MAP_MAX_EVENTS } from '../embed/map-events';
import { access } from '../http/auth';
import { edgeCache } from '../http/edge-cache';
import { cachedPublicRead, canonicalQuery, ifNoneMatchHits, publicCacheKey, strongEtag } from '../http/etag';
import { createRouter, errors, ProblemSchema } from '../http/openapi';
import { intParam } from '../http/params';
import { ApiError } from '../http/problem';
import type { Context } from 'hono';
import type { AppEnv } from '../deps';
import { mapFilter, MapFilterQuery, windowHours } from './embed';

const MAP_MAX_AGE = 300;

/** Nothing in the image may run or load, whoever opens it directly. */
const MAP_POLICY = "default-src 'none'; frame-ancestors 'none'";

const MapQuery = MapFilterQuery.extend({
  theme: z
    .enum(MAP_THEMES, { message: 'must be light or dark' })
    .default('light')
    .openapi({ description: '`light` (default) or `dark`.' }),
  width: intParam(240, 1920).default(960).openapi({
    type: 'integer',
    description: 'Width in pixels, 240–1920 (default 960); the height follows (about 0.44 × width).',
    example: 960,
  }),
  format: z.enum(['svg', 'png'], { message: 'must be svg or png' }).default('svg').openapi({
    description:
      '`svg` (default) or `png` for places that take no SVG (chat, e-mail). PNG is rasterised by the Node deployment only; a Worker answers `501 format_unavailable`.',
  }),
});
const MAP_PARAMS = Object.keys(MapQuery.shape);

const mapRoute = createRoute({
  method: 'get',
  path: '/api/v1/map.svg',
  tags: ['Embed'],
  summary: 'World map of the window’s events',
  description: `A world map drawn by the service from bundled Natural Earth geometry (Equal Earth projection; no tiles, no third-party request): countries shaded by their number of events (each event once, however many outlets told it; the scale in the legend), and a mark per event with coordinates, sized by score and coloured by layer (Okabe–Ito, colour-blind safe); nearby marks merge (a merged mark's \`<title>\` says how many). Reads the ${MAP_MAX_EVENTS.toLocaleString('en')} strongest events of the window at most. Filters as the widget's. Accessible: \`<title>\`, \`<desc>\`, one \`<title>\` per mark. Public (per-IP limit); \`ETag\`/304, shared and edge cache for 5 minutes.`,
  middleware: [edgeCache(), access('public')] as const,
  request: { query: MapQuery },
  responses: {
    200: {
      description: 'The map.',
      content: {
        'image/svg+xml': { schema: z.string() },
        'image/png': { schema: z.string().openapi({ format: 'binary' }) },
      },
    },
    304: { description: 'Not modified: the `If-None-Match` ETag is current.' },
    ...errors(400, 401, 429, 503),
    501: {
      description: '`format=png` on a deployment without a rasteriser (Workers): `format_unavailable`.',
      content: { 'application/problem+json': { schema: ProblemSchema } },
    },
  },
});

/**
 * The map of a window and its filters, where the brief and compound crises point: absolute
 * under PUBLIC_BASE_URL, else a path on the API that answered. Not the request's Host: an MCP
 * tool call reaches the route through an internal request whose Host is not the caller's.
 * @example mapUrl(c, { hours: 4 }) // '/api/v1/map.svg?hours=4'
 */
export function mapUrl(c: Context<AppEnv>, params: Record<string, string | number>): string {
  const origin = c.env.deps.config.PUBLIC_BASE_URL?.replace(/\/+$/, '') ?? '';
  const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
  return `${origin}${mapRoute.path}?${query}`;
}

const scopeOf = (
  q: {
    layers?: string[] | undefined;
    country?: string | undefined;
    region?: string | undefined;
    min_score?: number | undefined;
  },
  hours: number,
) =>
  [
    `Events of the last ${hours % 24 === 0 && hours > 24 ? `${hours / 24} days` : `${hours} h`}`,
    ...(q.layers?.length ? [q.layers.map((l) => l.replace('_', ' ')).join(', ')] : []),
    ...(q.region ? [q.region] : []),
    ...(q.country ? [q.country] : []),
    ...(q.min_score ? [`score ≥ ${q.min_score}`] : []),
  ].join(' · ');

export const mapRoutes = createRouter().openapi(mapRoute, async (c) => {
  const q = c.req.valid('query');
  const { db, now, rasterizePng } = c.env.deps;
  if (q.format === 'png' && !rasterizePng) {
    throw new ApiError(
      501,
      'format_unavailable',
      'This deployment (a Worker) cannot rasterise: PNG is served by the Node deployment. Ask for the SVG (omit `format`).',
    );
  }
  c.header('Content-Security-Policy', MAP_POLICY);
  const render = async () => {
    const hours = windowHours(q);
    const { events, truncated } = await mapEvents(db, mapFilter(q, now()));
    return renderMap(events, {
      theme: q.theme satisfies MapTheme,
      width: q.width,
      scope: scopeOf(q, hours),
      truncated,
    });
  };
  const key = await publicCacheKey('map', canonicalQuery(c.req.url, MAP_PARAMS));
  if (q.format === 'svg' || !rasterizePng) {
    return cachedPublicRead(c, { key, maxAge: MAP_MAX_AGE }, async () => ({
      body: await render(),
      headers: { 'Content-Type': 'image/svg+xml; charset=utf-8' },
    }));
  }
  // The PNG is a function of the SVG: tag it by the SVG, so a current client costs no rasterising.
  const svg = await render();
  const validators = {
    ETag: await strongEtag(`png:${svg}`),
    'Cache-Control': `public, max-age=${MAP_MAX_AGE}`,
  };
  if (ifNoneMatchHits(c.req.header('if-none-match'), validators.ETag)) return c.body(null, 304, validators);
  const png = await rasterizePng(svg);
  return c.body(png, 200, { ...validators, 'Content-Type': 'image/png' });
});
