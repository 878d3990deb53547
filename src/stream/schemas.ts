import { z } from '@hono/zod-openapi';
import { SignalSchema } from '../signals/serialize';

/**
 * The stream's events as the OpenAPI document describes them: one schema per event type, each
 * an SSE event's fields (`id`, `event`, `data`), with `data` as the JSON it carries.
 */
const eventId = z.string().openapi({
  description:
    'A sync cursor (the position of this change in `updated_at`, id order). Reconnect with it as `Last-Event-ID` or `cursor` to resume right after this event.',
  example:
    'WyIxcTJ3M2UiLCIyMDI2LTExLTI2VDIxOjQwOjAwLjEyMzQ1NiswMDowMCIsIjNmMWMyYTllLTdiNGQtNGU4YS05YzFmLTJkNmI4YTBlNWYzMSJd',
});

const signalEvent = (type: 'signal' | 'update' | 'retraction', name: string, description: string) =>
  z.object({ id: eventId, event: z.literal(type), data: SignalSchema }).openapi(name, { description });

const StreamSignalEventSchema = signalEvent(
  'signal',
  'StreamSignalEvent',
  'A new signal, as `/api/v1/signals` serialises it (with `distinct=event`, its event’s lead).',
);
const StreamUpdateEventSchema = signalEvent(
  'update',
  'StreamUpdateEvent',
  'A stored signal changed: revised upstream, rescored, corroborated or joined to an event (with `distinct=event`, the event’s lead after the change).',
);
const StreamRetractionEventSchema = signalEvent(
  'retraction',
  'StreamRetractionEvent',
  'The upstream withdrew the signal (`retracted_at` is set); with `distinct=event`, the event has no matching signal left.',
);

const StreamEndSchema = z
  .object({
    reason: z.enum(['lifetime', 'slow_reader', 'key_revoked', 'unavailable', 'shutdown']).openapi({
      description:
        '`lifetime`: the stream reached its maximum lifetime; `slow_reader`: the client read too slowly and its buffer filled; `key_revoked`: the key was revoked (do not reconnect with it); `unavailable`: the database failed; `shutdown`: the server is stopping.',
    }),
    cursor: z.string().openapi({ description: 'Where to resume: the same as this event’s `id`.' }),
  })
  .openapi('StreamEnd');

const StreamEndEventSchema = z
  .object({ id: eventId, event: z.literal('end'), data: StreamEndSchema })
  .openapi('StreamEndEvent', {
    description: 'The last event of a stream: why it ends and the cursor to reconnect with.',
  });

/** Any event of the stream. */
export const StreamEventSchema = z
  .union([
    StreamSignalEventSchema,
    StreamUpdateEventSchema,
    StreamRetractionEventSchema,
    StreamEndEventSchema,
  ])
  .openapi('StreamEvent');
