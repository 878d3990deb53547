import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { requestOrigin } from './origin';

export interface FieldError {
  path: string;
  message: string;
}

/**
 * Every `code` the API can answer, with its title and when it happens: the one table the errors
 * page (`ERRORS_DOC_PATH`, one anchor per code) and `docs/errors.md` are checked against.
 */
export const PROBLEMS = {
  invalid_request: {
    status: 400,
    title: 'Invalid request',
    when: 'A parameter, header or body field is invalid, or a query parameter is one the endpoint does not take; every offending field is listed in `errors`.',
  },
  invalid_json: { status: 400, title: 'Malformed JSON body', when: 'The body is not valid JSON.' },
  unparseable_document: {
    status: 400,
    title: 'Unparseable feed document',
    when: 'Admin source ingest: the document does not parse with that connector; nothing is ingested.',
  },
  missing_api_key: {
    status: 401,
    title: 'API key required',
    when: 'No key on an endpoint that needs one (sent with `WWW-Authenticate: Bearer`).',
  },
  invalid_api_key: {
    status: 401,
    title: 'Invalid API key',
    when: 'The key is unknown, malformed (its checksum fails) or revoked.',
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    when: 'An admin route without the right operator token (`ADMIN_TOKEN`).',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    when: 'An unknown path, or an id that does not exist or is not yours (the answer never says which).',
  },
  unknown_connector: {
    status: 404,
    title: 'Unknown connector',
    when: 'Admin source ingest: no feed connector of that name.',
  },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    when: 'A known path with a method it does not answer; `Allow` lists the methods it does.',
  },
  account_exists: {
    status: 409,
    title: 'Account already exists',
    when: 'A signup with an email that already has an account.',
  },
  key_limit_reached: {
    status: 409,
    title: 'Key limit reached',
    when: 'An 11th active key on an account; revoke one first.',
  },
  cannot_revoke_current_key: {
    status: 409,
    title: 'Cannot revoke the key in use',
    when: 'Revoking the key the request authenticates with; use another key of the account.',
  },
  webhook_limit_reached: {
    status: 409,
    title: 'Webhook limit reached',
    when: 'A 6th webhook on a key (or more than 5 per active key across the account).',
  },
  source_exists: {
    status: 409,
    title: 'Source already exists',
    when: 'Admin sources: a source of that name exists.',
  },
  source_has_signals: {
    status: 409,
    title: 'Source has signals',
    when: 'Admin sources: deleting a source whose signals are stored; disable it instead.',
  },
  cursor_expired: {
    status: 410,
    title: 'Cursor expired',
    when: 'The live stream: a resume cursor (`Last-Event-ID` or `cursor`) older than the resume window (24 h by default); open the stream without one, then resync through `/api/v1/signals?updated_since=`.',
  },
  payload_too_large: {
    status: 413,
    title: 'Payload too large',
    when: 'A body over 64 KiB (admin ingest: over 10 MiB or 5,000 items).',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    when: 'A JSON body sent with another `Content-Type`.',
  },
  rate_limited: {
    status: 429,
    title: 'Rate limit exceeded',
    when: 'Over a rate limit; wait `Retry-After` seconds before the next call.',
  },
  stream_limit_reached: {
    status: 429,
    title: 'Too many open streams',
    when: 'The live stream: the key already holds its concurrent streams (free 1, pro 5); close one first.',
  },
  internal_error: {
    status: 500,
    title: 'Internal server error',
    when: 'A bug on our side; the details are logged, never sent. Quote `request_id` when reporting it.',
  },
  format_unavailable: {
    status: 501,
    title: 'Format unavailable here',
    when: 'A format this deployment cannot produce: `map.svg?format=png` on a Worker (PNG is rasterised by the Node deployment only).',
  },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    when: 'The database or store is unreachable, a query ran past the statement timeout, or a Worker is missing its configuration; retry after `Retry-After`.',
  },
  secret_unavailable: {
    status: 503,
    title: 'Signing secret unavailable',
    when: 'A webhook test delivery whose signing secret no configured key can decrypt; nothing is sent.',
  },
} as const satisfies Record<string, { status: number; title: string; when: string }>;

/** A stable machine `code` of a problem. */
export type ProblemCode = keyof typeof PROBLEMS;

/** Where the service explains its errors: an HTML page with one anchor per `code`. */
export const ERRORS_DOC_PATH = '/api/v1/docs/errors';

/**
 * A problem's `type`: the errors page of the deployment that answered, at the code's anchor, so
 * it resolves wherever the API runs. Without an origin it is the same reference, relative.
 * @example problemType('not_found', 'https://api.example.org') // 'https://api.example.org/api/v1/docs/errors#not_found'
 */
const problemType = (code: ProblemCode, origin = '') => `${origin}${ERRORS_DOC_PATH}#${code}`;

/**
 * The one error the app throws: rendered as RFC 9457 problem+json with a stable `code`.
 * @example throw new ApiError(404, 'not_found', 'No signal with that id.')
 */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: ProblemCode,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
    this.name = 'ApiError';
  }

  get title(): string {
    return PROBLEMS[this.code].title;
  }

  /** The problem+json body; `origin` (no trailing slash) makes `type` an absolute URL. */
  toJSON(origin = '') {
    return {
      type: problemType(this.code, origin),
      title: this.title,
      status: this.status,
      detail: this.detail,
      code: this.code,
      ...(this.errors ? { errors: this.errors } : {}),
    };
  }
}

/** 400 invalid_request listing every offending field. */
export const invalidRequest = (errors: FieldError[], detail?: string) =>
  new ApiError(
    400,
    'invalid_request',
    detail ?? `Invalid ${errors.map((e) => e.path || 'request').join(', ')}.`,
    errors,
  );

/** 404 that never says whether the id exists elsewhere. */
export const notFound = (what = 'resource') =>
  new ApiError(404, 'not_found', `No ${what} with that id is visible to this key.`);

/**
 * The origin `type` links point at: `PUBLIC_BASE_URL`, else the request's own origin when its
 * `Host` is a valid host (the same rule as feed links), else none (a relative `type`), so a
 * forged header never writes into an answer and rendering an error never throws.
 */
function problemOrigin(c: Context): string {
  const configured = (c.env as { deps?: { config?: { PUBLIC_BASE_URL?: string } } } | undefined)?.deps?.config
    ?.PUBLIC_BASE_URL;
  if (configured) return configured.replace(/\/+$/, '');
  try {
    return requestOrigin(c) ?? '';
  } catch {
    return '';
  }
}

/** Writes `error` as problem+json on `c`. */
export function problemResponse(c: Context, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers ?? {})) c.header(name, value);
  c.header('Content-Type', 'application/problem+json; charset=utf-8');
  c.header('Cache-Control', 'no-store');
  // Our own failures carry the request id, so a user can quote it and we can find its log lines.
  const requestId = error.status >= 500 ? (c.get('requestId') as string | undefined) : undefined;
  const json = error.toJSON(problemOrigin(c));
  const body = requestId ? { ...json, request_id: requestId } : json;
  return c.body(JSON.stringify(body), error.status);
}
