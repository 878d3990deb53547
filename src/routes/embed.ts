import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../deps';
import {
  renderWidget,
  renderWidgetError,
  WIDGET_ERROR_POLICY,
  WIDGET_THEMES,
  widgetItem,
  widgetPolicy,
  type WidgetProblem,
} from '../embed/render';
import { recentSignals } from '../feeds/recent';
import { access } from '../http/auth';
import { publicBaseUrl } from '../http/base-url';
import { edgeCache } from '../http/edge-cache';
import { cachedPublicRead, canonicalQuery, publicCacheKey } from '../http/etag';
import { createRouter, errors } from '../http/openapi';
import { countryParam, distinctParam, intParam, layersParam } from '../http/params';

const EMBED_MAX_AGE = 60;

const SelectionQuery = z.object({
  layers: layersParam()
    .optional()
    .openapi({ description: 'Comma-separated threat layers (default: all).', example: 'cyber,military' }),
  country: countryParam()
    .optional()
    .openapi({ description: 'ISO 3166-1 alpha-2 code (default: all).', example: 'UA' }),
  hours: intParam(1, 168).default(24).openapi({
    type: 'integer',
    description: 'Look-back window in whole hours, 1–168 (default 24).',
    example: 24,
  }),
  limit: intParam(1, 30)
    .default(10)
    .openapi({ type: 'integer', description: 'Signals shown, 1–30 (default 10).', example: 10 }),
  distinct: distinctParam().optional(),
});
const SELECTION_PARAMS = Object.keys(SelectionQuery.shape);

const WidgetQuery = SelectionQuery.extend({
  theme: z
    .enum(WIDGET_THEMES, { message: 'must be light, dark or auto' })
    .default('auto')
    .openapi({ description: "`light`, `dark`, or `auto` (default: follows the viewer's colour scheme)." }),
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
    'A server-rendered HTML page for an `<iframe>`: the newest signals of the last `hours`, refreshed in place every 2 minutes. Any page may frame it, `file:` and `about:blank` included: its Content-Security-Policy has no `frame-ancestors` (only its own hashed script and style, requests only to its own origin), and it sends no X-Frame-Options and no cookies. An error (a bad parameter, a rate limit) is answered with a small HTML page saying why, with the same status. Public (per-IP limit); `ETag`/304 (the 304 carries the same policy).',
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
    c.res = new Response(renderWidgetError(problem, status), { status });
    c.res.headers.set('Content-Type', 'text/html; charset=utf-8');
    c.res.headers.set('Content-Security-Policy', WIDGET_ERROR_POLICY);
    c.res.headers.delete('Content-Length');
  }
};

const selection = (q: z.infer<typeof SelectionQuery>, now: Date) => ({
  filter: {
    layers: q.layers,
    country: q.country,
    start: new Date(now.getTime() - q.hours * 3_600_000),
    distinct: q.distinct,
  },
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
      const rows = await recentSignals(db, filter, limit);
      const dataQuery = canonicalQuery(c.req.url, SELECTION_PARAMS);
      const body = renderWidget({
        items: rows.map(widgetItem),
        theme: query.theme,
        hours: query.hours,
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
