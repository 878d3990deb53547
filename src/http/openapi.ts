import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from '../deps';
import { invalidRequest, type FieldError } from './problem';

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

/** A router whose validation failures become 400 `invalid_request` problems. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const parameters = result.target === 'query' || result.target === 'param';
        throw invalidRequest(fieldErrors(result.error, parameters));
      }
    },
  });
}

export type AppRouter = ReturnType<typeof createRouter>;

export const ProblemSchema = z
  .object({
    type: z.string().openapi({ example: 'https://signal-intel.dev/problems/invalid-request' }),
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
  400: problem('Invalid parameter or body (`invalid_request`, `invalid_json`).'),
  401: problem('Missing (`missing_api_key`) or invalid (`invalid_api_key`) API key.'),
  404: problem('Not found (`not_found`).'),
  409: problem('Conflict with the current state.'),
  413: problem('Body too large (`payload_too_large`).'),
  415: problem('Body is not JSON (`unsupported_media_type`).'),
  429: problem('Rate limit exceeded (`rate_limited`); see `Retry-After`.'),
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
