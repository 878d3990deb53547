import { createRoute, z } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { requireAdmin } from '../http/admin';
import { createRouter, errors } from '../http/openapi';
import { ApiError } from '../http/problem';
import { ingestDocument, UnparseableDocumentError } from '../ingest/upstream';
import { connectorFor } from '../sources/registry';
import { resolveSource, SourceResolutionError } from '../sources/store';
import { CONNECTOR_NAMES, type ConnectorName } from '../sources/types';

/** A feed document may be large (NVD, KEV ~1.5 MB, unbounded EONET ~4 MB); this is the cap. */
export const DOCUMENT_LIMIT = 10 * 1024 * 1024;
const adminSecurity = [{ AdminToken: [] }];

export const UpstreamResultSchema = z
  .object({
    accepted: z.number().int().openapi({ description: 'New signals.', example: 12 }),
    updated: z
      .number()
      .int()
      .openapi({ description: 'Stored signals revised in place or retracted.', example: 1 }),
    duplicates: z.number().int().openapi({ description: 'Items with nothing new.', example: 3 }),
    rejected: z.number().int().openapi({ description: 'Items that failed validation.', example: 0 }),
    errors: z.array(z.object({ index: z.number().int(), message: z.string() })),
    ids: z.array(z.uuid()).openapi({ description: 'Signals accepted or updated, in document order.' }),
  })
  .openapi('UpstreamResult');

/** Maps a source lookup failure to its problem. */
export function sourceProblem(error: unknown): unknown {
  if (!(error instanceof SourceResolutionError)) return error;
  const status = error.code === 'invalid_request' ? 400 : 404;
  return new ApiError(status, error.code, error.message);
}

const connectorParam = z
  .string()
  .openapi({ param: { name: 'connector', in: 'path' }, example: 'usgs', enum: [...CONNECTOR_NAMES] });

const ingestRoute = createRoute({
  method: 'post',
  path: '/api/v1/admin/sources/{connector}/ingest',
  tags: ['Admin'],
  summary: 'Ingest one raw feed document with a connector',
  description:
    'The body is one feed document exactly as the feed serves it (GeoJSON, RSS/Atom XML, JSON), up to 10 MiB, any content type. It is parsed with the connector and ingested under `source` (default: the connector\'s first catalogue source, created if missing), with no age cut-off: a backfill keeps old items with their own dates. Known items are duplicates, or revised in place, or retracted (see "Live data" in the README). A document that does not parse is a 400 `unparseable_document` and ingests nothing.',
  security: adminSecurity,
  middleware: [
    requireAdmin,
    bodyLimit({
      maxSize: DOCUMENT_LIMIT,
      onError: () => {
        throw new ApiError(413, 'payload_too_large', 'The document must be at most 10 MiB.');
      },
    }),
  ] as const,
  request: {
    params: z.object({ connector: connectorParam }),
    query: z.object({
      source: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .openapi({ description: 'Name of the source to ingest under.', example: 'GDACS alerts' }),
    }),
    body: {
      required: true,
      content: {
        '*/*': { schema: z.unknown().openapi({ type: 'string', description: 'The raw feed document.' }) },
      },
    },
  },
  responses: {
    200: {
      description: 'What the document added, revised, retracted and skipped.',
      content: { 'application/json': { schema: UpstreamResultSchema } },
    },
    ...errors(400, 401, 404, 413, 503),
  },
});

export const adminSourceRoutes = createRouter().openapi(ingestRoute, async (c) => {
  const { connector: name } = c.req.valid('param');
  const { source: sourceName } = c.req.valid('query');
  const db = c.env.deps.db;
  const source = await resolveSource(db, name, sourceName).catch((error: unknown) => {
    throw sourceProblem(error);
  });
  const connector = connectorFor(name as ConnectorName);
  if (!connector) throw new ApiError(404, 'unknown_connector', `No connector named ${name}.`);
  const document = await c.req.text();
  try {
    return c.json(await ingestDocument(db, connector, source, document), 200);
  } catch (error) {
    if (error instanceof UnparseableDocumentError) {
      throw new ApiError(400, 'unparseable_document', error.message);
    }
    throw error;
  }
});
