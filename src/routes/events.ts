import { createRoute, z } from '@hono/zod-openapi';
import { EventSchema, findEvent } from '../events/read';
import { access } from '../http/auth';
import { createRouter, errors, pagination, security } from '../http/openapi';
import { pageParams } from '../http/params';
import { notFound } from '../http/problem';
import { listSignalPage } from '../signals/page';
import type { SignalFilter } from '../signals/query';
import type { SignalJson } from '../signals/serialize';
import { cursorSeekKey } from './signals';

const EXAMPLE_ID = '9d2f4c1a-3b7e-4e2a-8f6d-1c0b9a8e7d65';

const EventQuery = z.object(
  pageParams({
    defaultLimit: 20,
    limit: 'Member signals per page, 1–100 (default 20).',
    rows: 'Member signals',
    cursor: '`members.pagination.next_cursor` of the previous page of this event; not with `offset`.',
  }),
);

const eventRoute = createRoute({
  method: 'get',
  path: '/api/v1/events/{id}',
  tags: ['Signals'],
  summary: 'Get one event',
  description:
    'One real-world event as several sources told it: its first and last report, countries, layer, severity, corroboration (independent publishers), its strongest signal and its member signals, paged like /api/v1/signals (`members.data`, `members.pagination`). The id of an event that was merged into another answers `308 Permanent Redirect` to the surviving event (`Location`, query kept): clients that follow redirects get the surviving event, whose `id` differs from the one asked for. Use event ids from `event_id` on any signal.',
  security,
  middleware: [access('key')] as const,
  request: {
    params: z.object({
      id: z
        .uuid({ message: 'must be a UUID' })
        .openapi({ param: { name: 'id', in: 'path' }, example: EXAMPLE_ID }),
    }),
    query: EventQuery,
  },
  responses: {
    200: {
      description: 'The event, with the requested page of its member signals.',
      content: { 'application/json': { schema: EventSchema } },
    },
    308: {
      description:
        'The event was merged into another: `Location` is the surviving event (the same query string). Follow it; store the new id.',
      headers: {
        Location: {
          description: 'The surviving event, e.g. `/api/v1/events/<id>?limit=20`.',
          schema: { type: 'string', pattern: '^/api/v1/events/[0-9a-f-]{36}(\\?.*)?$' },
        },
      },
    },
    ...errors(400, 401, 404, 429, 503),
  },
});

export const eventRoutes = createRouter().openapi(eventRoute, async (c) => {
  const { id } = c.req.valid('param');
  const { limit, offset = 0, cursor } = c.req.valid('query');
  const { db } = c.env.deps;
  const filter: SignalFilter = { eventId: id };
  const after = cursor === undefined ? undefined : cursorSeekKey(cursor, filter, c.req.query('offset'));
  const found = await findEvent(db, id);
  if (found.kind === 'missing') throw notFound('event');
  if (found.kind === 'merged') {
    const query = new URL(c.req.url).search;
    // A cursor belongs to the merged-away event's list; the surviving event starts afresh.
    const kept = new URLSearchParams(query);
    kept.delete('cursor');
    const search = kept.toString();
    return c.body(null, 308, { Location: `/api/v1/events/${found.into}${search ? `?${search}` : ''}` });
  }
  const page = await listSignalPage(db, filter, { limit, offset, after }, 'json');
  const members = JSON.parse(page.data) as SignalJson[];
  const firstPage = offset === 0 && after === undefined;
  const strongest = firstPage
    ? (members[0] ?? null)
    : ((
        JSON.parse((await listSignalPage(db, filter, { limit: 1, offset: 0 }, 'json')).data) as SignalJson[]
      )[0] ?? null);
  return c.json(
    {
      ...found.event,
      strongest_signal: strongest,
      members: {
        data: members,
        pagination: pagination(limit, offset, page.hasMore, page.nextCursor, cursor !== undefined),
      },
    },
    200,
  );
});
