import { createRoute, z } from '@hono/zod-openapi';
import { BRIEF, watchBrief } from '../analytics/brief';
import { WindowSchema } from '../analytics/schemas';
import { access } from '../http/auth';
import { cached, CACHE_TTL } from '../http/cache';
import { answers, createRouter, errors, security } from '../http/openapi';
import { configuredChat } from '../net/chat';
import { mapUrl } from './map';

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
    map_url: z.string().openapi({
      description:
        "The world map of the brief's window (`/api/v1/map.svg?hours=4`), public; absolute under `PUBLIC_BASE_URL`.",
      example: '/api/v1/map.svg?hours=4',
    }),
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
  ...answers({ cached: true }),
  responses: {
    200: { description: 'The brief.', content: { 'application/json': { schema: BriefSchema } } },
    ...errors(401, 429, 503),
  },
});

export const briefRoutes = createRouter().openapi(briefRoute, async (c) => {
  const { db, now, config, log } = c.env.deps;
  const llm = configuredChat(config);
  const value = await cached(
    c,
    'brief',
    CACHE_TTL.brief,
    () => watchBrief(db, now(), { fetch: c.env.deps.fetch, llm, log }),
    'private',
    // Another process holding the lock may be waiting on the LLM for its whole time limit.
    BRIEF.llmTimeoutMs + 2000,
  );
  return c.json({ ...value, map_url: mapUrl(c, { hours: BRIEF.windowHours }) }, 200);
});
