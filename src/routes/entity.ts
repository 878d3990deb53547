import { createRoute, z } from '@hono/zod-openapi';
import { entityView } from '../analytics/entity';
import { WindowSchema } from '../analytics/schemas';
import { access } from '../http/auth';
import { createRouter, errors, pagination, PaginationSchema, security } from '../http/openapi';
import { intParam, pageParams } from '../http/params';
import { ApiError, invalidRequest } from '../http/problem';
import { CursorError } from '../signals/cursor';

const EntityViewSchema = z
  .object({
    entity: z.object({
      name: z.string().openapi({ example: 'Kharkiv' }),
      types: z.array(z.string()).openapi({ example: ['location'] }),
    }),
    window: WindowSchema,
    total_signals: z.number().int(),
    layers: z.array(z.object({ threat_layer: z.string(), signal_count: z.number().int() })),
    timeline: z.array(
      z.object({ date: z.string().openapi({ example: '2026-11-21' }), signal_count: z.number().int() }),
    ),
    graph: z.object({
      nodes: z.array(
        z.object({ id: z.string(), name: z.string(), type: z.string(), signal_count: z.number().int() }),
      ),
      edges: z.array(
        z.object({
          source: z.string(),
          target: z.string(),
          weight: z.number().int().openapi({ description: 'Signals naming both entities.' }),
        }),
      ),
    }),
    data: z.array(
      z.object({
        id: z.string(),
        threat_layer: z.string(),
        significance_score: z.number(),
        signal_valence: z.string(),
        title: z.string(),
        country_codes: z.array(z.string()),
        published_at: z.string(),
        source_url: z.string(),
        mentions: z.number().int(),
      }),
    ),
    pagination: PaginationSchema,
  })
  .openapi('EntityView');

const entityRoute = createRoute({
  method: 'get',
  path: '/api/v1/entity',
  tags: ['Analytics'],
  summary: 'Entity view',
  description:
    'Signals mentioning an entity (exact name, any case), newest first, with layer breakdown, daily timeline and the co-mention graph over the lookback.',
  security,
  middleware: [access('key')] as const,
  request: {
    query: z.object({
      name: z
        .string({ message: 'is required' })
        .trim()
        .min(2, 'must be at least 2 characters')
        .max(200, 'must be at most 200 characters')
        .openapi({ example: 'Kharkiv' }),
      days: intParam(1, 365)
        .default(30)
        .openapi({ type: 'integer', description: 'Lookback, 1–365 days.', example: 30 }),
      ...pageParams({
        defaultLimit: 50,
        cursor:
          '`pagination.next_cursor` of the previous page, with the same `name` and `days`; not with `offset`.',
      }),
    }),
  },
  responses: {
    200: { description: 'The entity view.', content: { 'application/json': { schema: EntityViewSchema } } },
    ...errors(400, 401, 404, 429, 503),
  },
});

export const entityRoutes = createRouter().openapi(entityRoute, async (c) => {
  const { offset = 0, ...q } = c.req.valid('query');
  if (q.cursor !== undefined && c.req.query('offset') !== undefined) {
    throw invalidRequest([
      {
        path: 'cursor',
        message: 'cannot be combined with offset: a cursor already says where the page starts',
      },
    ]);
  }
  const view = await entityView(c.env.deps.db, c.env.deps.now(), { ...q, offset }).catch((error: unknown) => {
    if (error instanceof CursorError) throw invalidRequest([{ path: 'cursor', message: error.message }]);
    throw error;
  });
  if (!view) throw new ApiError(404, 'not_found', `No entity named "${q.name}".`);
  const { signals, hasMore, nextCursor, ...rest } = view;
  return c.json(
    {
      ...rest,
      data: signals,
      pagination: pagination(q.limit, offset, hasMore, nextCursor, q.cursor !== undefined),
    },
    200,
  );
});
