import { createRoute, z } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { requireAdmin } from '../http/admin';
import { createRouter, errors } from '../http/openapi';
import { ApiError, invalidRequest, type FieldError } from '../http/problem';
import { feedUrlProblem } from '../webhooks/guard';
import { ingestDocument, newsGrader, UnparseableDocumentError } from '../ingest/upstream';
import { MAX_DOCUMENT_ITEMS, TooManyItemsError } from '../sources/common';
import { connectorFor } from '../sources/registry';
import {
  createSource,
  deleteSource,
  listPolledSources,
  resolveSource,
  settingsProblem,
  sourceById,
  SourceNameTaken,
  SourceResolutionError,
  sourceView,
  updateSource,
  type SourceRow,
  type SourceSettings,
} from '../sources/rows';
import { CONNECTOR_NAMES, type ConnectorName } from '../sources/types';
import { AdminSourceSchema, CreateSourceSchema, UpdateSourceSchema } from '../sources/schemas';
import type { SourceTier } from '../vocab';
import { jsonBody } from '../http/body';

/** A feed document may be large (NVD, KEV ~1.5 MB, unbounded EONET ~4 MB); this is the cap. */
const DOCUMENT_LIMIT = 10 * 1024 * 1024;
const adminSecurity = [{ AdminToken: [] }];

const UpstreamResultSchema = z
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
function sourceProblem(error: unknown): unknown {
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
    "The body is one feed document exactly as the feed serves it (GeoJSON, RSS/Atom XML, JSON), up to 10 MiB, any content type. It is parsed with the connector and ingested under `source` (default: the connector's first catalogue source, created if missing), with no age cut-off: a backfill keeps old items with their own dates. Known items are duplicates, or revised in place, or retracted (see docs/live-sources.md). A document that does not parse is a 400 `unparseable_document`, and one with more than 5,000 items a 413 `payload_too_large`; neither ingests anything.",
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

const idParam = z.object({
  id: z.uuid({ message: 'must be a UUID' }).openapi({ param: { name: 'id', in: 'path' } }),
});

const sourceBody = (description: string) => ({
  description,
  content: { 'application/json': { schema: AdminSourceSchema } },
});

const listRoute = createRoute({
  method: 'get',
  path: '/api/v1/admin/sources',
  tags: ['Admin'],
  summary: 'Polled sources with their settings and health',
  description: 'Every source that has a connector (the built-in catalogue and operator-added ones), by name.',
  security: adminSecurity,
  middleware: [requireAdmin] as const,
  request: {
    query: z.object({
      connector: z
        .enum(CONNECTOR_NAMES, { message: `must be one of ${CONNECTOR_NAMES.join(', ')}` })
        .optional(),
    }),
  },
  responses: {
    200: {
      description: 'The sources.',
      content: { 'application/json': { schema: z.object({ data: z.array(AdminSourceSchema) }) } },
    },
    ...errors(400, 401, 404, 503),
  },
});

const createSourceRoute = createRoute({
  method: 'post',
  path: '/api/v1/admin/sources',
  tags: ['Admin'],
  summary: 'Add a polled source',
  description:
    'Names are unique (409 `source_exists`). An enabled source must carry what its connector needs (ReliefWeb `options.appname`, GDELT `options.query`), else 400. It is due for polling at once.',
  security: adminSecurity,
  middleware: [requireAdmin, jsonBody()] as const,
  request: { body: { required: true, content: { 'application/json': { schema: CreateSourceSchema } } } },
  responses: { 201: sourceBody('The new source.'), ...errors(400, 401, 404, 409, 413, 415, 503) },
});

const getSourceRoute = createRoute({
  method: 'get',
  path: '/api/v1/admin/sources/{id}',
  tags: ['Admin'],
  summary: 'One source with its settings and health',
  security: adminSecurity,
  middleware: [requireAdmin] as const,
  request: { params: idParam },
  responses: { 200: sourceBody('The source.'), ...errors(400, 401, 404, 503) },
});

const updateSourceRoute = createRoute({
  method: 'patch',
  path: '/api/v1/admin/sources/{id}',
  tags: ['Admin'],
  summary: 'Change a source (enable, disable, interval, URL, options)',
  description:
    'The connector cannot change. A new URL or options drop the stored ETag/Last-Modified; any change makes the source due now.',
  security: adminSecurity,
  middleware: [requireAdmin, jsonBody()] as const,
  request: {
    params: idParam,
    body: { required: true, content: { 'application/json': { schema: UpdateSourceSchema } } },
  },
  responses: { 200: sourceBody('The changed source.'), ...errors(400, 401, 404, 409, 413, 415, 503) },
});

const deleteSourceRoute = createRoute({
  method: 'delete',
  path: '/api/v1/admin/sources/{id}',
  tags: ['Admin'],
  summary: 'Delete a source that has no signals',
  description:
    'A source whose signals are stored cannot be deleted (409 `source_has_signals`): its signals keep citing it. Disable it instead (`PATCH {"enabled": false}`).',
  security: adminSecurity,
  middleware: [requireAdmin] as const,
  request: { params: idParam },
  responses: { 204: { description: 'Deleted.' }, ...errors(400, 401, 404, 409, 503) },
});

const missingSource = () => new ApiError(404, 'not_found', 'No source with that id.');

/** The most a source's free-form `options` may hold, as JSON: connectors read a few short settings. */
const OPTIONS_LIMIT = 8 * 1024;

/**
 * 400 for what an operator may not set on a source whatever its connector: a URL on a private,
 * loopback, link-local or metadata address (the webhook guard's rules; WEBHOOK_ALLOW_INSECURE
 * lifts them, as it lifts the connect-time check of polls), or `options` over `OPTIONS_LIMIT`.
 */
function checkInput(input: { url?: string; options?: Record<string, unknown> }, allowInsecure: boolean) {
  const errors: FieldError[] = [];
  const urlIssue = input.url === undefined ? null : feedUrlProblem(input.url, allowInsecure);
  if (urlIssue) errors.push({ path: 'url', message: urlIssue });
  if (input.options !== undefined && JSON.stringify(input.options).length > OPTIONS_LIMIT) {
    errors.push({ path: 'options', message: `must be at most ${OPTIONS_LIMIT / 1024} KiB as JSON` });
  }
  if (errors.length > 0) throw invalidRequest(errors);
}

/** 400 when an enabled source lacks what its connector needs to poll. */
function checkSettings(settings: SourceSettings) {
  const problem = settingsProblem(settings);
  if (problem) throw invalidRequest([{ path: 'options', message: problem }]);
}

const settingsOf = (row: SourceRow): SourceSettings => ({
  connector: row.connector as ConnectorName,
  name: row.name,
  url: row.url ?? '',
  tier: row.tier as SourceTier,
  interval_minutes: row.intervalMinutes,
  enabled: row.enabled,
  options: row.options as Record<string, unknown>,
});

export const adminSourceRoutes = createRouter()
  .openapi(listRoute, async (c) => {
    const { connector } = c.req.valid('query');
    const rows = await listPolledSources(c.env.deps.db, connector);
    return c.json({ data: rows.map(sourceView) }, 200);
  })
  .openapi(createSourceRoute, async (c) => {
    const settings = c.req.valid('json');
    checkInput(settings, c.env.deps.config.WEBHOOK_ALLOW_INSECURE);
    checkSettings(settings);
    const row = await createSource(c.env.deps.db, settings);
    if (!row) throw new ApiError(409, 'source_exists', `A source named ${settings.name} already exists.`);
    return c.json(sourceView(row), 201);
  })
  .openapi(getSourceRoute, async (c) => {
    const row = await sourceById(c.env.deps.db, c.req.valid('param').id);
    if (!row) throw missingSource();
    return c.json(sourceView(row), 200);
  })
  .openapi(updateSourceRoute, async (c) => {
    const { id } = c.req.valid('param');
    const change = c.req.valid('json');
    checkInput(change, c.env.deps.config.WEBHOOK_ALLOW_INSECURE);
    const db = c.env.deps.db;
    const current = await sourceById(db, id);
    if (!current) throw missingSource();
    if (current.connector) checkSettings({ ...settingsOf(current), ...change });
    try {
      const row = await updateSource(db, id, change);
      if (!row) throw missingSource();
      return c.json(sourceView(row), 200);
    } catch (error) {
      if (error instanceof SourceNameTaken) throw new ApiError(409, 'source_exists', error.message);
      throw error;
    }
  })
  .openapi(deleteSourceRoute, async (c) => {
    const outcome = await deleteSource(c.env.deps.db, c.req.valid('param').id);
    if (outcome === 'not_found') throw missingSource();
    if (outcome === 'has_signals') {
      throw new ApiError(
        409,
        'source_has_signals',
        'This source has signals, which keep citing it; disable it instead (PATCH {"enabled": false}).',
      );
    }
    return c.body(null, 204);
  })
  .openapi(ingestRoute, async (c) => {
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
      const { config, fetch } = c.env.deps;
      return c.json(
        await ingestDocument(db, connector, source, document, new Date(), newsGrader(config, fetch)),
        200,
      );
    } catch (error) {
      if (error instanceof UnparseableDocumentError) {
        throw new ApiError(400, 'unparseable_document', error.message);
      }
      if (error instanceof TooManyItemsError) {
        throw new ApiError(
          413,
          'payload_too_large',
          `At most ${MAX_DOCUMENT_ITEMS} items per document (got ${error.count}); nothing was ingested.`,
        );
      }
      throw error;
    }
  });
