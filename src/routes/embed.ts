import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../deps';
import { mapEvents } from '../embed/map-events';
import {
  renderWidget,
  renderWidgetError,
  WIDGET_MAP_EVENTS,
  WIDGET_THEMES,
  WIDGET_VIEWS,
  widgetErrorPolicy,
  widgetItem,
  widgetPolicy,
  type WidgetProblem,
  type WidgetTheme,
} from '../embed/render';
import { recentSignals } from '../feeds/recent';
import { access } from '../http/auth';
import { publicBaseUrl } from '../http/base-url';
import { edgeCache } from '../http/edge-cache';
import { cachedPublicRead, canonicalQuery, publicCacheKey } from '../http/etag';
import { createRouter, errors } from '../http/openapi';
import { countryParam, distinctParam, intParam, layersParam, numberParam, regionParam } from '../http/params';
import { invalidRequest } from '../http/problem';
import type { SignalFilter } from '../signals/query';

/** The longest window the widget and the map serve: 30 days, as the rest of the API. */
const MAX_WINDOW_HOURS = 720;

const EMBED_MAX_AGE = 60;

/** The widget's and the map's filters: the same names and ranges as the rest of the API. */
export const MapFilterQuery = z.object({
  layers: layersParam()
    .optional()
    .openapi({ description: 'Comma-separated threat layers (default: all).', example: 'cyber,military' }),
  min_score: numberParam(0, 10)
    .optional()
    .openapi({ type: 'number', description: 'Minimum significance score, 0–10.', example: 6 }),
  region: regionParam().optional().openapi({ description: 'One region (default: all).', example: 'Europe' }),
  country: countryParam()
    .optional()
    .openapi({ description: 'ISO 3166-1 alpha-2 code (default: all).', example: 'UA' }),
  hours: intParam(1, MAX_WINDOW_HOURS)
    .optional()
    .openapi({
      type: 'integer',
      description: `Look-back window in whole hours, 1–${MAX_WINDOW_HOURS} (30 days); default 24. Not with \`days\`.`,
      example: 24,
    }),
  days: intParam(1, MAX_WINDOW_HOURS / 24)
    .optional()
    .openapi({
      type: 'integer',
      description: `Look-back window in whole days, 1–${MAX_WINDOW_HOURS / 24}; the same as \`hours\` × 24. Not with \`hours\`.`,
      example: 7,
    }),
});

/** What the widget's list reads (`/embed/data`), and so what its live stream is opened with. */
export const SelectionQuery = MapFilterQuery.extend({
  limit: intParam(1, 30)
    .default(10)
    .openapi({ type: 'integer', description: 'Signals listed, 1–30 (default 10).', example: 10 }),
  distinct: distinctParam().optional(),
});
const SELECTION_PARAMS = Object.keys(SelectionQuery.shape);

const WidgetQuery = SelectionQuery.extend({
  theme: z
    .enum(WIDGET_THEMES, { message: 'must be light, dark or auto' })
    .default('auto')
    .openapi({ description: "`light`, `dark`, or `auto` (default: follows the viewer's colour scheme)." }),
  view: z.enum(WIDGET_VIEWS, { message: 'must be auto, map or list' }).default('auto').openapi({
    description:
      "`map`: the map of the window's events and its table; `list`: the newest signals; `auto` (default): the map above the list when the frame is at least 400 px tall, else the list.",
  }),
});
const WIDGET_PARAMS = Object.keys(WidgetQuery.shape);

const WidgetItemSchema = z
  .object({
    id: z.uuid(),
    threat_layer: z.string().openapi({ example: 'cyber' }),
    significance_score: z.number().openapi({ example: 8.1 }),
    signal_valence: z.string().openapi({ example: 'crisis' }),
    title: z.string().openapi({ example: 'Ransomware attack diverts ambulances in Lyon' }),
    summary: z.string().openapi({ description: 'The display text, cut at 180 characters.' }),
    country_codes: z.array(z.string()).openapi({ example: ['FR'] }),
    published_at: z.string().openapi({ example: '2026-11-21T09:30:00.000Z' }),
    source_url: z.string().nullable(),
    source_name: z.string().openapi({ example: 'Le Journal' }),
  })
  .openapi('WidgetItem');

/** The data endpoint is JSON for the widget's script, never a page to frame. */
const DATA_POLICY = "default-src 'none'; frame-ancestors 'none'";

const widgetError = (description: string) =>
  ({ description, content: { 'text/html': { schema: z.string() } } }) as const;

const notModified = { description: 'Not modified: the `If-None-Match` ETag is current.' } as const;

const widgetRoute = createRoute({
  method: 'get',
  path: '/embed',
  tags: ['Embed'],
  summary: 'Embeddable widget of recent signals',
  description:
    "A server-rendered HTML page for an `<iframe>`: the newest signals of the window (`hours` or `days`, up to 30 days), refreshed in place every 2 minutes, under a map of the window's events (`view`; hover or focus a mark for its event, click to open it). Any page may frame it, `file:` and `about:blank` included: its Content-Security-Policy has no `frame-ancestors` (only its own hashed script and style, requests only to its own origin), and it sends no X-Frame-Options and no cookies. An error (a bad parameter, a rate limit) is answered with a small HTML page in the widget's style and requested `theme`, saying why and the allowed range, with the same status. Public (per-IP limit); `ETag`/304 (the 304 carries the same policy).",
  middleware: [edgeCache(), access('public')] as const,
  request: { query: WidgetQuery },
  responses: {
    200: { description: 'The widget page.', content: { 'text/html': { schema: z.string() } } },
    304: notModified,
    400: widgetError('A parameter is invalid: a page naming it.'),
    401: widgetError('The `X-Api-Key` sent is not valid: a page saying so.'),
    429: widgetError('Rate limited: a page saying so (with `Retry-After`).'),
    500: widgetError('An unexpected failure: a page saying so (with its request id).'),
    503: widgetError('The service is briefly unavailable: a page saying so (with `Retry-After`).'),
  },
});

const widgetDataRoute = createRoute({
  method: 'get',
  path: '/embed/data',
  tags: ['Embed'],
  summary: "The widget's refresh data",
  description: 'The entries `/embed` shows for the same selection, as JSON; the widget polls it. `ETag`/304.',
  middleware: [edgeCache(), access('public')] as const,
  request: { query: SelectionQuery },
  responses: {
    200: {
      description: 'The entries, newest first.',
      content: {
        'application/json': {
          schema: z.object({ items: z.array(WidgetItemSchema) }).openapi('WidgetData'),
        },
      },
    },
    304: notModified,
    ...errors(400, 401, 429, 503),
  },
});

/**
 * `/embed` alone is exempt from the app-wide framing ban (`/embed/data` keeps it). Its pages
 * carry the widget policy, set before rendering so a 304 carries it too; an error on it (a bad
 * parameter, a 429) becomes a small readable HTML page with the same status, framable anywhere.
 */
const embedErrors: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  const isProblem = (c.res.headers.get('Content-Type') ?? '').startsWith('application/problem+json');
  if (isProblem && c.req.method === 'GET' && c.req.path === '/embed') {
    const problem = await c.res.clone().json<WidgetProblem>();
    const status = c.res.status;
    // The theme as asked, when it is one (it may be the parameter at fault).
    const asked = c.req.query('theme');
    const theme = WIDGET_THEMES.find((t) => t === asked) ?? 'auto';
    c.res = new Response(renderWidgetError(problem, status, theme satisfies WidgetTheme), { status });
    c.res.headers.set('Content-Type', 'text/html; charset=utf-8');
    c.res.headers.set('Content-Security-Policy', await widgetErrorPolicy());
    c.res.headers.delete('Content-Length');
  }
};

/** The window in hours from `hours` or `days` (24 when neither); both at once is a 400. */
export function windowHours(q: { hours?: number | undefined; days?: number | undefined }): number {
  if (q.hours !== undefined && q.days !== undefined) {
    const message = 'give the window as hours or as days, not both';
    throw invalidRequest([
      { path: 'hours', message },
      { path: 'days', message },
    ]);
  }
  return q.days !== undefined ? q.days * 24 : (q.hours ?? 24);
}

/** The signal filter of a map or widget selection, over the window ending `now`. */
export const mapFilter = (q: z.infer<typeof MapFilterQuery>, now: Date): SignalFilter => ({
  layers: q.layers,
  minScore: q.min_score,
  region: q.region,
  country: q.country,
  start: new Date(now.getTime() - windowHours(q) * 3_600_000),
});

const selection = (q: z.infer<typeof SelectionQuery>, now: Date) => ({
  filter: { ...mapFilter(q, now), distinct: q.distinct },
  limit: q.limit,
});

const router = createRouter();
router.use('/embed', embedErrors);

export const embedRoutes = router
  .openapi(widgetRoute, async (c) => {
    const query = c.req.valid('query');
    const { db, now } = c.env.deps;
    const baseUrl = publicBaseUrl(c);
    const key = await publicCacheKey('embed', baseUrl, canonicalQuery(c.req.url, WIDGET_PARAMS));
    // Set here, not in the rendering, so a 304 carries the same policy as the 200.
    c.header('Content-Security-Policy', await widgetPolicy());
    return cachedPublicRead(c, { key, maxAge: EMBED_MAX_AGE }, async () => {
      const { filter, limit } = selection(query, now());
      const showsList = query.view !== 'map';
      const showsMap = query.view !== 'list';
      const [rows, map] = await Promise.all([
        showsList ? recentSignals(db, filter, limit) : [],
        showsMap ? mapEvents(db, filter, WIDGET_MAP_EVENTS) : undefined,
      ]);
      const dataQuery = canonicalQuery(c.req.url, SELECTION_PARAMS);
      const body = renderWidget({
        items: rows.map(widgetItem),
        map,
        view: query.view,
        theme: query.theme,
        hours: windowHours(query),
        layers: query.layers,
        country: query.country,
        dataPath: `/embed/data${dataQuery ? `?${dataQuery}` : ''}`,
        baseUrl,
      });
      return {
        body,
        headers: { 'Content-Type': 'text/html; charset=utf-8' },
      };
    });
  })
  .openapi(widgetDataRoute, async (c) => {
    const query = c.req.valid('query');
    const { db, now } = c.env.deps;
    const key = await publicCacheKey('embed-data', canonicalQuery(c.req.url, SELECTION_PARAMS));
    c.header('Content-Security-Policy', DATA_POLICY);
    return cachedPublicRead(c, { key, maxAge: EMBED_MAX_AGE }, async () => {
      const { filter, limit } = selection(query, now());
      const rows = await recentSignals(db, filter, limit);
      return {
        body: JSON.stringify({ items: rows.map(widgetItem) }),
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
      };
    });
  });
