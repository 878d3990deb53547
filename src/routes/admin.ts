import { createRoute, z } from '@hono/zod-openapi';
import { requireAdmin } from '../http/admin';
import { jsonBody } from '../http/body';
import { createRouter, errors } from '../http/openapi';
import { ApiError, invalidRequest } from '../http/problem';
import { cleanIngestText } from '../sources/common';
import { ingestSignals, MAX_INGEST_ITEMS } from '../ingest/pipeline';
import { email, IssuedKeySchema, keyName } from '../keys/schemas';
import { issueKeyForEmail, setAccountTier } from '../keys/service';
import { KEY_TIERS } from '../vocab';

const INGEST_LIMIT = 10 * 1024 * 1024;
const adminSecurity = [{ AdminToken: [] }];

const IngestResultSchema = z
  .object({
    accepted: z.number().int().openapi({ example: 2 }),
    duplicates: z.number().int().openapi({ example: 1 }),
    rejected: z.number().int().openapi({ example: 1 }),
    errors: z.array(
      z.object({
        index: z.number().int().openapi({ example: 3 }),
        errors: z.array(z.object({ path: z.string(), message: z.string() })),
      }),
    ),
  })
  .openapi('IngestResult');

const ingestRoute = createRoute({
  method: 'post',
  path: '/api/v1/admin/signals',
  tags: ['Admin'],
  summary: 'Ingest signals',
  description:
    'A JSON array (`application/json`) or NDJSON (`application/x-ndjson`) of signals, up to 10 MiB and 5,000 items (413 `payload_too_large` past either). Each item is validated on its own; duplicates (same `source_url`) are skipped; the accepted ones are written in one transaction.',
  security: adminSecurity,
  middleware: [requireAdmin, jsonBody(INGEST_LIMIT, ['application/json', 'application/x-ndjson'])] as const,
  request: {
    // Items are validated one by one in the handler (a bad item must not fail the batch),
    // so these schemas only document the body.
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .unknown()
            .openapi({ type: 'array', items: { type: 'object' }, description: 'Signals to ingest.' }),
        },
        'application/x-ndjson': {
          schema: z.unknown().openapi({ type: 'string', description: 'One signal object per line.' }),
        },
      },
    },
  },
  responses: {
    200: {
      description: 'What was accepted, skipped and rejected.',
      content: { 'application/json': { schema: IngestResultSchema } },
    },
    ...errors(400, 401, 404, 413, 415, 503),
  },
});

/** Splits an NDJSON body into items; a line that does not parse is reported by its index. */
function parseBody(type: string, text: string): unknown[] {
  if (type !== 'application/x-ndjson') {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed))
      throw invalidRequest([{ path: 'body', message: 'must be a JSON array of signals' }]);
    return parsed;
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as unknown;
      } catch {
        return { __invalid_json_line: line.slice(0, 80) };
      }
    });
}

const keyRoute = createRoute({
  method: 'post',
  path: '/api/v1/admin/keys',
  tags: ['Admin'],
  summary: 'Issue a key of any tier',
  description: 'Creates the account when the email is new; an existing account takes the given tier.',
  security: adminSecurity,
  middleware: [requireAdmin, jsonBody()] as const,
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z.strictObject({ email, name: keyName.optional(), tier: z.enum(KEY_TIERS) }),
        },
      },
    },
  },
  responses: {
    201: {
      description: 'The new key (shown once).',
      content: { 'application/json': { schema: IssuedKeySchema } },
    },
    ...errors(400, 401, 404, 413, 415, 503),
  },
});

const tierRoute = createRoute({
  method: 'patch',
  path: '/api/v1/admin/accounts/{email}',
  tags: ['Admin'],
  summary: "Change an account's tier",
  security: adminSecurity,
  middleware: [requireAdmin, jsonBody()] as const,
  request: {
    params: z.object({ email: email.openapi({ param: { name: 'email', in: 'path' } }) }),
    body: {
      required: true,
      content: { 'application/json': { schema: z.strictObject({ tier: z.enum(KEY_TIERS) }) } },
    },
  },
  responses: {
    200: {
      description: 'The account and its new tier.',
      content: { 'application/json': { schema: z.object({ email: z.string(), tier: z.enum(KEY_TIERS) }) } },
    },
    ...errors(400, 401, 404, 413, 415, 503),
  },
});

export const adminRoutes = createRouter()
  .openapi(ingestRoute, async (c) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const items = parseBody(type, await c.req.text());
    if (items.length > MAX_INGEST_ITEMS) {
      throw new ApiError(
        413,
        'payload_too_large',
        `At most ${MAX_INGEST_ITEMS} items per request (got ${items.length}); send them in several requests.`,
      );
    }
    return c.json(
      await ingestSignals(c.env.deps.db, items.map(cleanIngestText), { now: c.env.deps.now() }),
      200,
    );
  })
  .openapi(keyRoute, async (c) => {
    const body = c.req.valid('json');
    return c.json(await issueKeyForEmail(c.env.deps.db, body.email, body.tier, body.name ?? null), 201);
  })
  .openapi(tierRoute, async (c) => {
    const { email: address } = c.req.valid('param');
    const { tier } = c.req.valid('json');
    if (!(await setAccountTier(c.env.deps.db, address, tier))) {
      throw new ApiError(404, 'not_found', 'No account with that email.');
    }
    return c.json({ email: address.toLowerCase(), tier }, 200);
  });
