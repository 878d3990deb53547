import { createRoute, z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { access } from '../http/auth';
import { cached, CACHE_TTL } from '../http/cache';
import { edgeCache } from '../http/edge-cache';
import { etaggedJson } from '../http/etag';
import { answers, createRouter, errors } from '../http/openapi';
import { ApiError } from '../http/problem';
import { STORE_TIMEOUT_MS, withDeadline } from '../store/deadline';
import { freshnessAt, readFreshnessCounts } from '../system/freshness';

const healthRoute = createRoute({
  method: 'get',
  path: '/api/v1/health',
  tags: ['System'],
  summary: 'Health',
  description: 'Checks the database (and reports the store). 503 when the database is unreachable.',
  middleware: [access('public')] as const,
  responses: {
    200: {
      description: 'Healthy.',
      content: {
        'application/json': {
          schema: z
            .object({
              status: z.literal('ok'),
              database: z.literal('ok'),
              store: z.enum(['ok', 'unavailable']),
              time: z.string(),
            })
            .openapi('Health'),
        },
      },
    },
    ...errors(429, 503),
  },
});

const freshnessRoute = createRoute({
  method: 'get',
  path: '/api/v1/freshness',
  tags: ['System'],
  summary: 'Data freshness',
  description: `Latest ingest and publication times, ingest lag, sources silent for 48 hours or more, and the lag of each live (polled) source. Public; read from the counters ingest keeps, cached 30 seconds (the lags are to \`checked_at\`).`,
  middleware: [edgeCache(), access('public')] as const,
  ...answers({ cached: true }),
  responses: {
    200: {
      description: 'Freshness of the data.',
      content: {
        'application/json': {
          schema: z
            .object({
              latest_ingested_at: z.string().nullable(),
              latest_published_at: z.string().nullable(),
              ingest_lag_seconds: z.number().int().nullable(),
              signals_last_hour: z.number().int(),
              stale_source_hours: z.number().int(),
              stale_sources: z.array(
                z.object({
                  id: z.uuid(),
                  name: z.string(),
                  tier: z.string(),
                  last_seen_at: z.string().nullable(),
                }),
              ),
              live_sources: z
                .array(
                  z.object({
                    id: z.uuid(),
                    name: z.string(),
                    connector: z.string(),
                    last_success_at: z.string().nullable(),
                    poll_lag_seconds: z.number().int().nullable(),
                    item_lag_seconds: z.number().int().nullable(),
                    consecutive_failures: z.number().int(),
                  }),
                )
                .openapi({
                  description:
                    'Enabled live sources, most behind first: seconds since the last successful poll and since the newest item.',
                }),
              checked_at: z.string(),
            })
            .openapi('Freshness'),
        },
      },
    },
    304: { description: 'Not modified: `If-None-Match` matched the `ETag`.' },
    ...errors(429, 503),
  },
});

export const systemRoutes = createRouter()
  .openapi(healthRoute, async (c) => {
    const { db, store, now } = c.env.deps;
    const [database, storeState] = await Promise.allSettled([
      db.execute(sql`SELECT 1`),
      // A stalled store reads as unavailable instead of holding the health check open.
      withDeadline(store.ping(), STORE_TIMEOUT_MS),
    ]);
    if (database.status === 'rejected') {
      throw new ApiError(503, 'service_unavailable', 'The database is unreachable.', undefined, {
        'Retry-After': '5',
      });
    }
    c.header('Cache-Control', 'no-store');
    return c.json(
      {
        status: 'ok' as const,
        database: 'ok' as const,
        store: storeState.status === 'fulfilled' ? ('ok' as const) : ('unavailable' as const),
        time: now().toISOString(),
      },
      200,
    );
  })
  .openapi(freshnessRoute, async (c) => {
    const { db, now } = c.env.deps;
    const counts = await cached(
      c,
      'freshness',
      CACHE_TTL.freshness,
      () => readFreshnessCounts(db, now()),
      'public',
    );
    return etaggedJson(c, freshnessAt(counts, now()));
  });
