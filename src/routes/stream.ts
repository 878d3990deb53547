import { createRoute, z } from '@hono/zod-openapi';
import { EMBED_STREAMS_PER_ADDRESS } from '../embed/live';
import type { Deps } from '../deps';
import { access, callerOf } from '../http/auth';
import { createRouter, errors, security } from '../http/openapi';
import { cursorParam } from '../http/params';
import { ApiError, invalidRequest } from '../http/problem';
import { CursorError, readStreamCursor, type SyncKey } from '../stream/changes';
import type { StreamFilter } from '../stream/filter';
import { STREAM_CAPS } from '../stream/hub';
import { StreamEventSchema } from '../stream/schemas';
import { openStream } from '../stream/session';
import { SelectionQuery } from './embed';
import { SignalFilterQuery, toSignalFilter } from './signals';

const resumeDescription =
  'Resume right after this event `id` (what the browser sends as `Last-Event-ID`): first every change missed since, then live ones.';

const StreamQuery = SignalFilterQuery.pick({
  layers: true,
  min_score: true,
  region: true,
  country: true,
  bbox: true,
  distinct: true,
}).extend({
  cursor: cursorParam()
    .optional()
    .openapi({ description: `${resumeDescription} Wins over the \`Last-Event-ID\` header.` }),
  api_key: z.string().optional().openapi({
    description:
      'Your API key, for clients that cannot send headers (a browser `EventSource`). Prefer the header elsewhere: URLs end up in logs.',
  }),
});

const streamRoute = createRoute({
  method: 'get',
  path: '/api/v1/stream',
  tags: ['Signals'],
  summary: 'Stream signals as they happen',
  description:
    'Server-Sent Events: each signal seconds after it is stored (`signal`), each change to a stored one (`update`) and each withdrawal (`retraction`), carrying the signal as `/api/v1/signals` serialises it. Every event `id` is a sync cursor: reconnect with `Last-Event-ID` (or `cursor`) and you first receive everything you missed, then live events, with no gap and no repeat. A heartbeat comment every 15 s; after one hour, or when the client reads too slowly, the server ends the stream with an `end` event carrying the cursor to resume from. Opening a stream counts as one request; a key holds at most 1 open stream (free) or 5 (pro). See docs/stream.md.',
  security,
  middleware: [access('key', { queryKey: true })] as const,
  request: {
    query: StreamQuery,
    headers: z.object({
      'last-event-id': cursorParam().optional().openapi({ description: resumeDescription }),
    }),
  },
  responses: {
    200: {
      description:
        'An event stream (`text/event-stream`); each event is one of the schemas below, its `data` written as JSON.',
      content: { 'text/event-stream': { schema: StreamEventSchema } },
    },
    ...errors(400, 401, 410, 429, 503),
  },
});

/** The resume position of a request, if it names one; a 400 naming `cursor` when it is not one. */
function resumePoint(cursor: string | undefined): SyncKey | undefined {
  if (cursor === undefined) return undefined;
  try {
    return readStreamCursor(cursor);
  } catch (error) {
    if (error instanceof CursorError) throw invalidRequest([{ path: 'cursor', message: error.message }]);
    throw error;
  }
}

// The widget opens its stream with its list's own query (live.ts swaps /embed/data for /embed/stream),
// so the stream takes the same parameters; the window and the list's length do not filter a live
// stream (everything new is inside any window), and they are said to do nothing.
const EmbedStreamQuery = SelectionQuery;

const embedStreamRoute = createRoute({
  method: 'get',
  path: '/embed/stream',
  tags: ['Feeds and exports'],
  summary: 'Live stream for the embed widget',
  description: `The widget's live updates (src/embed/live.ts): the same events as \`/api/v1/stream\` for the widget's selection (\`layers\`, \`min_score\`, \`region\`, \`country\`, \`distinct\`), without a key; it takes the widget list's query as it is, and \`hours\`, \`days\` and \`limit\` do nothing to a live stream. Public: opening one counts against the per-IP limit, and one client address holds at most ${EMBED_STREAMS_PER_ADDRESS} at once (429 \`stream_limit_reached\` beyond). No resume: the widget refreshes its list from \`/embed/data\` on each event.`,
  middleware: [access('public')] as const,
  request: { query: EmbedStreamQuery },
  responses: {
    200: {
      description: 'An event stream (`text/event-stream`), as `/api/v1/stream` sends.',
      content: { 'text/event-stream': { schema: StreamEventSchema } },
    },
    ...errors(400, 429, 503),
  },
});

/** The headers of a live stream. */
const STREAM_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store',
  // nginx and similar proxies buffer responses by default, which would hold events back.
  'X-Accel-Buffering': 'no',
};

/** Opens a stream for `holder` (a key id, or an address for the embed); a problem when it cannot. */
async function openFor(
  deps: Deps,
  stream: { filter: StreamFilter; holder: string; cap: number; after?: SyncKey; refused: string },
): Promise<ReadableStream<Uint8Array>> {
  if (!deps.stream) {
    throw new ApiError(
      503,
      'service_unavailable',
      'The live stream is not available on this deployment.',
      undefined,
      {
        'Retry-After': '60',
      },
    );
  }
  const body = await openStream({
    db: deps.db,
    hub: deps.stream,
    filter: stream.filter,
    keyId: stream.holder,
    cap: stream.cap,
    after: stream.after,
    config: deps.config,
    log: deps.log,
  });
  if (!body) {
    throw new ApiError(429, 'stream_limit_reached', stream.refused, undefined, { 'Retry-After': '5' });
  }
  return body;
}

export const streamRoutes = createRouter()
  .openapi(streamRoute, async (c) => {
    const { deps } = c.env;
    const caller = callerOf(c);
    const { cursor, api_key: _key, ...query } = c.req.valid('query');
    const { layers, minScore, region, country, bbox, distinct } = toSignalFilter(query);
    const after = resumePoint(cursor ?? c.req.valid('header')['last-event-id']);
    const windowHours = deps.config.STREAM_RESUME_WINDOW_HOURS;
    if (after && Date.parse(after.updatedAt) < deps.now().getTime() - windowHours * 3_600_000) {
      throw new ApiError(
        410,
        'cursor_expired',
        `The cursor is older than the ${windowHours} h resume window. Open the stream without a cursor, then resync what you missed with GET /api/v1/signals?updated_since=<the updated_at of the last signal you kept> (upsert by id), following pagination.next_cursor to the end.`,
      );
    }
    const cap = STREAM_CAPS[caller.tier];
    const body = await openFor(deps, {
      filter: { layers, minScore, region, country, bbox, distinct },
      holder: caller.keyId,
      cap,
      after,
      refused: `This key already holds ${cap} open stream${cap === 1 ? '' : 's'} (the ${caller.tier} tier's limit); close one, or reconnect after it ends.`,
    });
    return c.body(body, 200, STREAM_HEADERS);
  })
  .openapi(embedStreamRoute, async (c) => {
    const { deps } = c.env;
    const { layers, min_score: minScore, region, country, distinct } = c.req.valid('query');
    const body = await openFor(deps, {
      filter: { layers, minScore, region, country, distinct },
      holder: `address:${deps.clientIp(c)}`,
      cap: EMBED_STREAMS_PER_ADDRESS,
      refused: `This address already holds ${EMBED_STREAMS_PER_ADDRESS} open widget streams; the widget keeps polling instead.`,
    });
    return c.body(body, 200, STREAM_HEADERS);
  });
