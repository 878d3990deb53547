import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from '../deps';
import { WebhookPayloadSchema } from '../webhooks/payload';
import { invalidRequest, type FieldError } from './problem';
import { rejectUnknownParams } from './unknown-params';

/**
 * Zod issues as our `errors` entries: the field path and a readable message. Query and path
 * parameters are named by the parameter alone (`layers`, not `layers.1`).
 */
export function fieldErrors(error: z.ZodError, parameters = false): FieldError[] {
  return error.issues.map((issue) => ({
    path: (parameters ? issue.path.slice(0, 1) : issue.path).map(String).join('.') || 'body',
    message: issue.message,
  }));
}

/** The names a route's query schema declares; `undefined` when it is not a plain object schema. */
function declaredQuery(query: unknown): string[] | undefined {
  if (query === undefined) return [];
  const shape = (query as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape) : undefined;
}

/**
 * A router whose validation failures become 400 `invalid_request` problems, and whose every
 * route refuses query parameters its schema does not declare (see `rejectUnknownParams`), so
 * a route gets that from its definition alone.
 */
export function createRouter() {
  const router = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const parameters = result.target === 'query' || result.target === 'param';
        throw invalidRequest(fieldErrors(result.error, parameters));
      }
    },
  });
  // Whoever asks for the document (the served route, the docs page, MCP, the client
  // generator) gets it completed with what every route shares; see `completeDocument`.
  const generate = router.getOpenAPI31Document;
  router.getOpenAPI31Document = (config, options) => completeDocument(generate(config, options));
  const register = router.openapi;
  router.openapi = (route, handler, hook) => {
    const declared = declaredQuery(route.request?.query);
    if (!declared) return register(route, handler, hook);
    const given = route.middleware ?? [];
    // After the route's own middleware (edge cache, access), just before its validators.
    const middleware = [...(Array.isArray(given) ? given : [given]), rejectUnknownParams(declared)];
    return register({ ...route, middleware }, handler, hook);
  };
  return router;
}

export const ProblemSchema = z
  .object({
    type: z.string().openapi({
      description:
        'A link to this code on the errors page of the service that answered (`/api/v1/docs/errors#<code>`).',
      example: 'https://api.example.org/api/v1/docs/errors#invalid_request',
    }),
    title: z.string().openapi({ example: 'Invalid request' }),
    status: z.number().int().openapi({ example: 400 }),
    detail: z.string().openapi({ example: 'Invalid min_score.' }),
    code: z.string().openapi({ example: 'invalid_request' }),
    errors: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .openapi({ example: [{ path: 'min_score', message: 'must be between 0 and 10' }] }),
    request_id: z.string().optional().openapi({
      description:
        'On 5xx answers: the id of the request (also sent as `X-Request-Id`), to quote when reporting it.',
      example: '0b6f3c1e-2f7a-4d0e-9a57-4c1d2e3f4a5b',
    }),
  })
  .openapi('Problem');

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ProblemSchema } },
});

/** The error responses shared by routes, for the OpenAPI document. */
export const errorResponses = {
  400: problem(
    'An invalid or unknown query parameter, or an invalid body (`invalid_request`, `invalid_json`).',
  ),
  401: problem('Missing (`missing_api_key`) or invalid (`invalid_api_key`) API key.'),
  404: problem('Not found (`not_found`).'),
  409: problem('Conflict with the current state.'),
  413: problem('Body too large (`payload_too_large`).'),
  415: problem('Body is not JSON (`unsupported_media_type`).'),
  410: problem(
    'The resume cursor is older than the resume window (`cursor_expired`); resync as `detail` says.',
  ),
  429: problem(
    'Rate limit exceeded (`rate_limited`), or the key already holds its open streams (`stream_limit_reached`); see `Retry-After`.',
  ),
  503: problem('Database or store unreachable (`service_unavailable`); see `Retry-After`.'),
} as const;

/** Picks the listed error responses for a route definition. */
export function errors<S extends keyof typeof errorResponses>(...statuses: S[]) {
  return Object.fromEntries(statuses.map((s) => [s, errorResponses[s]])) as Pick<typeof errorResponses, S>;
}

export const PaginationSchema = z
  .object({
    limit: z.number().int().openapi({ example: 50 }),
    offset: z.number().int().openapi({ example: 0 }),
    has_more: z.boolean().openapi({ example: true }),
    next_offset: z.number().int().nullable().openapi({ example: 50 }),
    next_cursor: z.string().nullable().openapi({
      description:
        'Pass as `cursor` (with the same filters) for the next page; null on the last page. Unlike `offset`, a cursor page costs the same at any depth and never shifts when signals arrive.',
      example: 'WyIxMmFiYyIsNy41LCIyMDI2LTExLTE5VDEyOjAwOjAwKzAwOjAwIiwiM2YxYyJd',
    }),
  })
  .openapi('Pagination');

/**
 * `{ limit, offset, has_more, next_offset, next_cursor }` of a page. A page read by cursor has
 * no position: its `offset` is 0 and `next_offset` null (keep following `next_cursor`).
 */
export const pagination = (
  limit: number,
  offset: number,
  hasMore: boolean,
  nextCursor: string | null = null,
  byCursor = false,
) => ({
  limit,
  offset,
  has_more: hasMore,
  next_offset: hasMore && !byCursor ? offset + limit : null,
  next_cursor: hasMore ? nextCursor : null,
});

export const security: Array<Record<string, string[]>> = [{ ApiKey: [] }, { Bearer: [] }];

/** What a route's 200 carries besides its body, each documented as response headers. */
export interface AnswerTraits {
  /** Comes from the shared value cache (`cached` in http/cache.ts): `Cache-Control`, `Age`, `X-Cache`. */
  cached?: boolean;
  /** Is a named download: `Content-Disposition`. */
  download?: boolean;
  /** As CSV, carries the next page's cursor in `X-Next-Cursor`. */
  csvCursor?: boolean;
}

const TRAITS_FIELD = 'x-answer-traits' as const;

/**
 * Declares a route's answer traits in its definition; `completeDocument` turns them into
 * headers and drops the field, so it never reaches the document.
 * @example createRoute({ method: 'get', path: '/api/v1/trending', ...answers({ cached: true }), ... })
 */
export const answers = (traits: AnswerTraits) => ({ [TRAITS_FIELD]: traits });

/* ------------------------------------------------------------------------------------------ */
/* Completing the generated document                                                           */
/* ------------------------------------------------------------------------------------------ */

type Json = Record<string, unknown>;
interface Operation extends Json {
  operationId?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Json[];
  responses: Record<string, Json & { headers?: Json; content?: Json }>;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const CURSOR_PATTERN = '^[A-Za-z0-9_-]+$';

/** Response headers the API sends, as reusable components (`#/components/headers/<name>`). */
const HEADERS: Record<string, Json> = {
  'X-Request-Id': {
    description:
      'The id of this request: the caller’s own `X-Request-Id` when well formed (8–128 of `A-Z a-z 0-9 . _ : -`), else a new UUID. Quote it when reporting a problem.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{8,128}$' },
  },
  'Server-Timing': {
    description: 'Milliseconds spent in the database, the store (rate limits, cache) and in total.',
    schema: {
      type: 'string',
      pattern: '^db;dur=[0-9.]+;desc="[^"]*", store;dur=[0-9.]+;desc="[^"]*", total;dur=[0-9.]+$',
    },
  },
  'X-RateLimit-Limit': {
    description: 'Requests allowed in the current window for this caller (key tier or IP).',
    schema: { type: 'integer', minimum: 1 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': {
    description: 'When the current window ends, in Unix seconds.',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Tier': {
    description: 'The limit that applied: `public` (per IP), or the key’s tier.',
    schema: { type: 'string', enum: ['public', 'free', 'pro'] },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 0 },
  },
  ETag: {
    description: 'A strong validator of the body; send it back in `If-None-Match` to get a 304.',
    schema: { type: 'string', pattern: '^(W/)?"[^"]*"$' },
  },
  'Cache-Control': {
    description: 'How long the answer may be reused (`no-store` on errors).',
    schema: { type: 'string' },
  },
  Age: {
    description: 'Seconds since the cached value was computed.',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-Cache': {
    description: '`HIT` when the value came from the shared cache, `MISS` when it was computed now.',
    schema: { type: 'string', enum: ['HIT', 'MISS'] },
  },
  'Content-Disposition': {
    description: 'Names the download.',
    schema: { type: 'string', pattern: '^attachment; filename="[^"]+"$' },
  },
  'X-Next-Cursor': {
    description: 'The next page’s `cursor` (CSV has no envelope to carry it); absent on the last page.',
    schema: { type: 'string', pattern: CURSOR_PATTERN },
  },
  'WWW-Authenticate': {
    description: 'The authentication scheme expected.',
    schema: { type: 'string' },
  },
};

const headerRef = (name: string): Json => ({ $ref: `#/components/headers/${name}` });

const RATE_LIMIT_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-RateLimit-Tier',
];

const TAG_DESCRIPTIONS: Record<string, string> = {
  System: 'Liveness and data freshness.',
  Signals: 'The scored signals: filter, page, sync, fetch one.',
  Keys: 'Sign up and manage your API keys.',
  Webhooks: 'Signed push deliveries of new signals matching your filters.',
  Analytics: 'Aggregates over the signals: snapshots, sources, trending, crises, clusters, entities, briefs.',
  'Feeds and exports': 'RSS, Atom and JSON Feed; CSV, JSON and GeoJSON downloads.',
  Embed: 'An embeddable widget and its data.',
  Agents: 'The Model Context Protocol server.',
  Admin: 'Operator endpoints (need `ADMIN_TOKEN`; absent when it is not configured).',
  Documentation: 'This document and its reference page.',
};

const problemResponse = (description: string, headers: Json = {}): Json => ({
  description,
  headers: { 'Cache-Control': headerRef('Cache-Control'), ...headers },
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

const pascal = (word: string) =>
  word
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');

/**
 * A stable operationId from method and path: `GET /api/v1/webhooks/{id}/deliveries` is
 * `getWebhooksByIdDeliveries` (the `/api/v1` or `/api` prefix dropped).
 */
function operationIdFor(method: string, path: string): string {
  const segments = path
    .replace(/^\/api(\/v1)?/, '')
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith('{') ? `By${pascal(segment.slice(1, -1))}` : pascal(segment)));
  return method.toLowerCase() + segments.join('');
}

const DOCUMENT_SCHEMA: Json = {
  type: 'object',
  description: 'An OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.0).',
  required: ['openapi', 'info', 'paths'],
  properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
};

/** The docs page's script: a static file (Node serves it from node_modules, Workers as an asset). */
const STATIC_SCRIPT = '/api/v1/docs/scalar.js';

/** The routes that describe the API itself, when no route of the app documents them. */
const SELF_DESCRIPTION: Record<string, Record<string, Operation>> = {
  [STATIC_SCRIPT]: {
    get: {
      tags: ['Documentation'],
      summary: 'Script of the API reference page',
      description:
        "The reference page's script (@scalar/api-reference, pinned), served by the service itself so the page needs no third-party host. A static file: no key, no rate limit, cached a day.",
      responses: {
        200: {
          description: 'The script.',
          content: { 'text/javascript': { schema: { type: 'string' } } },
        },
      },
    },
  },
  '/api/v1/openapi.json': {
    get: {
      tags: ['Documentation'],
      summary: 'This OpenAPI document',
      description:
        'The OpenAPI 3.1 document of the API, which the typed client and the reference page are generated from.',
      responses: {
        200: {
          description: 'The document.',
          content: {
            'application/json': { schema: DOCUMENT_SCHEMA },
          },
        },
      },
    },
  },
  '/api/v1/docs/errors': {
    get: {
      tags: ['Documentation'],
      summary: 'Errors page',
      description:
        'Every error `code` the API answers, with its status and when it happens: one section per code, anchored by the code (`#not_found`). Each problem’s `type` links here.',
      responses: {
        200: {
          description: 'The errors page.',
          content: { 'text/html': { schema: { type: 'string' } } },
        },
      },
    },
  },
  '/api/v1/docs': {
    get: {
      tags: ['Documentation'],
      summary: 'API reference page',
      description:
        'An HTML reference generated from this document; with `Accept: application/json`, the document itself.',
      responses: {
        200: {
          description: 'The reference page, or the document for `Accept: application/json`.',
          content: {
            'text/html': { schema: { type: 'string' } },
            'application/json': { schema: DOCUMENT_SCHEMA },
          },
        },
      },
    },
  },
};

let webhookPart: { webhooks: Json; schemas: Json } | undefined;

/** The `webhooks` section and its schemas, generated once from the zod schemas. */
function webhookSection(): { webhooks: Json; schemas: Json } {
  if (webhookPart) return webhookPart;
  const registry = new OpenAPIHono();
  registry.openAPIRegistry.registerWebhook({
    method: 'post',
    path: 'signals',
    operationId: 'signalsDelivery',
    tags: ['Webhooks'],
    summary: 'New signals matching a webhook',
    description:
      'Sent to the webhook’s URL when new signals match its filters (checked every 5 minutes), and by `POST /api/v1/webhooks/{id}/test` with one sample signal. With a secret, the raw body is signed twice: `X-Service-Signature-256` (`sha256=` + hex HMAC-SHA256 of the body, keyed with the secret) and Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the secret’s UTF-8 bytes). Verify against the raw bytes before parsing. Any 2xx acknowledges; anything else, or no answer within the timeout, is retried with backoff (5 minutes doubling to 6 hours), and a webhook failing for 3 days is paused.',
    security: [],
    request: {
      headers: z.object({
        'X-Service-Delivery': z
          .uuid()
          .openapi({ description: 'The delivery’s id (the same on a retry of it).' }),
        'X-Service-Signature-256': z
          .string()
          .regex(/^sha256=[0-9a-f]{64}$/)
          .optional()
          .openapi({ description: 'With a secret: `sha256=` + hex HMAC-SHA256 of the raw body.' }),
        'webhook-id': z
          .uuid()
          .optional()
          .openapi({ description: 'With a secret: the delivery’s id (Standard Webhooks).' }),
        'webhook-timestamp': z
          .string()
          .regex(/^\d+$/)
          .optional()
          .openapi({ description: 'With a secret: Unix seconds at signing (Standard Webhooks).' }),
        'webhook-signature': z
          .string()
          .regex(/^v1,[A-Za-z0-9+/]+={0,2}$/)
          .optional()
          .openapi({
            description:
              'With a secret: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` (Standard Webhooks).',
          }),
      }),
      body: { required: true, content: { 'application/json': { schema: WebhookPayloadSchema } } },
    },
    responses: {
      200: { description: 'Any 2xx acknowledges the delivery; the body is ignored.' },
      default: { description: 'Anything else counts as a failed attempt and is retried with backoff.' },
    },
  });
  const generated = registry.getOpenAPI31Document({ openapi: '3.1.0', info: { title: '', version: '' } });
  webhookPart = {
    webhooks: generated.webhooks ?? {},
    schemas: generated.components?.schemas ?? {},
  };
  return webhookPart;
}

const PROJECT_INFO = {
  license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  contact: { name: 'Signal Intelligence API', url: 'https://signal-intel.dev' },
};

/**
 * Completes the document the routes generate with what holds for every route, so no route can
 * forget it: a stable `operationId`, `security: []` on public operations, the 400/401/429/500/503
 * problems of the shared middleware (with `Retry-After`), the rate-limit, request-id and timing
 * headers, `If-None-Match`/304 with `ETag` where conditional GET works, the cache headers, the
 * self-describing routes, the `webhooks` section, tags with descriptions, license and contact.
 */
function completeDocument<T extends object>(generated: T): T {
  const doc = structuredClone(generated) as unknown as Json & {
    info: Json;
    paths: Record<string, Record<string, Operation>>;
    components?: Json & { headers?: Json; schemas?: Json; parameters?: Json };
    tags?: Json[];
    webhooks?: Json;
  };
  doc.info = { ...PROJECT_INFO, ...doc.info };
  for (const [path, item] of Object.entries(SELF_DESCRIPTION)) {
    doc.paths[path] ??= structuredClone(item);
  }
  const components = (doc.components ??= {});
  components.headers = { ...HEADERS, ...components.headers };
  components.parameters = {
    ...components.parameters,
    IfNoneMatch: {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description:
        'An `ETag` from an earlier answer: when it is still current the answer is 304 with no body.',
      schema: { type: 'string' },
    },
  };
  const tags = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      completeOperation(operation, method, path);
      for (const tag of operation.tags ?? []) tags.add(tag);
    }
  }
  const webhooks = webhookSection();
  doc.webhooks = { ...webhooks.webhooks, ...doc.webhooks };
  components.schemas = { ...webhooks.schemas, ...components.schemas };
  tags.add('Webhooks');
  const declared = new Map((doc.tags ?? []).map((tag) => [tag.name as string, tag]));
  doc.tags = [...tags].map(
    (name) => declared.get(name) ?? { name, description: TAG_DESCRIPTIONS[name] ?? `${name} operations.` },
  );
  return doc as unknown as T;
}

const PUBLIC_401 =
  'Only when a key is sent and it is unknown, malformed or revoked (`invalid_api_key`): this endpoint needs no key, so send none or a valid one.';

function completeOperation(operation: Operation, method: string, path: string): void {
  const traits = (operation[TRAITS_FIELD] ?? {}) as AnswerTraits;
  delete operation[TRAITS_FIELD];
  operation.operationId ??= operationIdFor(method, path);
  operation.tags = operation.tags?.length ? operation.tags : ['Documentation'];
  const admin = (operation.security ?? []).some((requirement) => 'AdminToken' in requirement);
  operation.security ??= [];
  const responses = operation.responses;
  // Every route but the admin ones and the static script runs `access()`: a bad key is a 401 and
  // the rate limits apply, their headers on every answer.
  const limited = !admin && path !== STATIC_SCRIPT;
  // A public route needs no key, but one that is sent and bad is refused rather than ignored
  // (a caller must learn their key is wrong): its 401 says exactly that, and nothing more.
  const isPublic = operation.security.length === 0;
  if (limited) responses[401] ??= problemResponse(errorResponses[401].description);
  if (limited && isPublic) responses[401] = { ...responses[401]!, description: PUBLIC_401 };
  // Every route of the app refuses a query parameter it does not declare (`rejectUnknownParams`).
  if (path !== STATIC_SCRIPT) responses[400] ??= problemResponse(errorResponses[400].description);
  // Admin routes have no rate limit, but failed admin tokens are limited per IP (a 429 for them).
  if (limited || admin) responses[429] ??= problemResponse(errorResponses[429].description);
  const conditional = 304 in responses;
  if (conditional) {
    const parameters = (operation.parameters ??= []);
    if (!parameters.some((p) => String(p.name).toLowerCase() === 'if-none-match')) {
      parameters.push({ $ref: '#/components/parameters/IfNoneMatch' });
    }
  }
  responses[500] ??= problemResponse('Unexpected failure (`internal_error`); quote `request_id`.');
  responses[503] ??= problemResponse(errorResponses[503].description);

  for (const [status, response] of Object.entries(responses)) {
    const code = Number(status);
    const headers: Json = {
      'X-Request-Id': headerRef('X-Request-Id'),
      'Server-Timing': headerRef('Server-Timing'),
    };
    if (limited) for (const name of RATE_LIMIT_HEADERS) headers[name] = headerRef(name);
    if (code >= 400) headers['Cache-Control'] = headerRef('Cache-Control');
    if (code === 401) headers['WWW-Authenticate'] = headerRef('WWW-Authenticate');
    if (code === 429) headers['Retry-After'] = { ...HEADERS['Retry-After'], required: true };
    if (code === 503) headers['Retry-After'] = headerRef('Retry-After');
    if (conditional && (code === 200 || code === 304)) {
      headers.ETag = headerRef('ETag');
      headers['Cache-Control'] = headerRef('Cache-Control');
    }
    if (code === 200 && traits.cached) {
      for (const name of ['Cache-Control', 'Age', 'X-Cache']) headers[name] = headerRef(name);
    }
    if (code === 200 && traits.download) headers['Content-Disposition'] = headerRef('Content-Disposition');
    if (code === 200 && traits.csvCursor) headers['X-Next-Cursor'] = headerRef('X-Next-Cursor');
    response.headers = { ...headers, ...response.headers };
  }
}
