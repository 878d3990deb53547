import { createRoute, z } from '@hono/zod-openapi';
import { FEED_CONTENT_TYPES, FEED_FORMATS, renderFeed } from '../feeds/build';
import { recentSignals } from '../feeds/recent';
import { access } from '../http/auth';
import { publicBaseUrl } from '../http/base-url';
import { edgeCache } from '../http/edge-cache';
import { cachedPublicRead, canonicalQuery, publicCacheKey } from '../http/etag';
import { createRouter, errors } from '../http/openapi';
import { intParam } from '../http/params';
import { LAYERS, VALENCES } from '../vocab';
import { SignalFilterQuery, toSignalFilter } from './signals';

/** How long a rendered feed is shared from the store (and may be cached by readers and CDNs). */
const FEED_MAX_AGE = 60;

const FeedQuery = SignalFilterQuery.extend({
  format: z
    .enum(FEED_FORMATS, { message: 'must be rss, atom or json' })
    .default('rss')
    .openapi({ description: '`rss` (RSS 2.0, default), `atom` (Atom 1.0) or `json` (JSON Feed 1.1).' }),
  limit: intParam(1, 50)
    .default(20)
    .openapi({ type: 'integer', description: 'Number of items, 1–50.', example: 20 }),
  api_key: z.string().optional().openapi({
    description:
      'Your API key, for feed readers that cannot send headers. Optional: the feed is public (per-IP limit); a key gives its own tier. Never echoed in the feed.',
  }),
});

const FEED_PARAMS = Object.keys(FeedQuery.shape).filter((name) => name !== 'api_key');

const notModified = {
  description: 'Not modified: the `If-None-Match` ETag is current.',
} as const;

const JsonFeedAuthor = z.looseObject({ name: z.string().optional(), url: z.string().optional() });

/** JSON Feed 1.1 as rendered: JSON Feed's fields plus the `_signal` extension on each item. */
const JsonFeedSchema = z
  .looseObject({
    version: z.literal('https://jsonfeed.org/version/1.1'),
    title: z.string(),
    home_page_url: z.string().optional(),
    feed_url: z.string().optional(),
    description: z.string().optional(),
    language: z.string().optional(),
    authors: z.array(JsonFeedAuthor).optional(),
    items: z.array(
      z.looseObject({
        id: z.string().openapi({ example: 'urn:uuid:3f1c2a9e-7b4d-4e8a-9c1f-2d6b8a0e5f31' }),
        url: z.string().optional(),
        external_url: z.string().optional(),
        title: z.string().optional(),
        content_html: z.string().optional(),
        content_text: z.string().optional(),
        date_published: z.string().optional(),
        date_modified: z.string().optional(),
        authors: z.array(JsonFeedAuthor).optional(),
        tags: z
          .array(z.string())
          .optional()
          .openapi({ example: ['layer:cyber', 'country:FR'] }),
        _signal: z
          .looseObject({
            about: z.string(),
            threat_layer: z.enum(LAYERS),
            significance_score: z.number(),
            signal_valence: z.enum(VALENCES),
            country_codes: z.array(z.string()),
            is_anomaly: z.boolean(),
            source_url: z.string(),
            source_name: z.string(),
          })
          .optional(),
      }),
    ),
  })
  .openapi('JsonFeed', { description: 'A JSON Feed 1.1 document (https://jsonfeed.org/version/1.1).' });

const feedRoute = createRoute({
  method: 'get',
  path: '/api/v1/feed',
  tags: ['Feeds and exports'],
  summary: 'Signals as RSS, Atom or JSON Feed',
  description: `The newest signals matching the filters of /api/v1/signals, newest first. Each item links to the original source (a public page; the signal id is its guid \`urn:uuid:<id>\`), and has its threat layer, score, valence and countries as categories (RSS \`domain\`, Atom \`scheme\` \`urn:signal-intel:<facet>\`, JSON Feed tags \`<facet>:<value>\` plus a \`_signal\` extension). Public; sends a strong \`ETag\` and answers \`If-None-Match\` with 304; rendered feeds are shared for ${FEED_MAX_AGE} s.`,
  middleware: [edgeCache(), access('public', { queryKey: true })] as const,
  request: { query: FeedQuery },
  responses: {
    200: {
      description: 'The feed in the requested format.',
      content: {
        'application/rss+xml': { schema: z.string() },
        'application/atom+xml': { schema: z.string() },
        'application/feed+json': { schema: JsonFeedSchema },
      },
    },
    304: notModified,
    ...errors(400, 401, 429, 503),
  },
});

/** A human summary of the selection, for the feed's description: `layers cyber; country UA`. */
function summarize(canonical: string): string {
  return [...new URLSearchParams(canonical)]
    .filter(([name]) => name !== 'format' && name !== 'limit')
    .map(([name, value]) => `${name} ${value}`)
    .join('; ');
}

export const feedRoutes = createRouter().openapi(feedRoute, async (c) => {
  const { format, limit, api_key: _key, ...query } = c.req.valid('query');
  const filter = toSignalFilter(query);
  const baseUrl = publicBaseUrl(c);
  const canonical = canonicalQuery(c.req.url, FEED_PARAMS);
  const selfUrl = `${baseUrl}/api/v1/feed${canonical ? `?${canonical}` : ''}`;
  const key = await publicCacheKey('feed', selfUrl);
  return cachedPublicRead(c, { key, maxAge: FEED_MAX_AGE }, async () => {
    const rows = await recentSignals(c.env.deps.db, filter, limit);
    const body = renderFeed(rows, format, {
      baseUrl,
      selfUrl,
      filterSummary: summarize(canonical),
      now: c.env.deps.now(),
    });
    return { body, headers: { 'Content-Type': FEED_CONTENT_TYPES[format] } };
  });
});
