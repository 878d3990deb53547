import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export interface FieldError {
  path: string;
  message: string;
}

const TITLES: Record<string, string> = {
  invalid_request: 'Invalid request',
  invalid_json: 'Malformed JSON body',
  missing_api_key: 'API key required',
  invalid_api_key: 'Invalid API key',
  unauthorized: 'Unauthorized',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  cannot_revoke_current_key: 'Cannot revoke the key in use',
  webhook_limit_reached: 'Webhook limit reached',
  account_exists: 'Account already exists',
  key_limit_reached: 'Key limit reached',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  rate_limited: 'Rate limit exceeded',
  service_unavailable: 'Service unavailable',
  secret_unavailable: 'Signing secret unavailable',
  internal_error: 'Internal server error',
  unknown_connector: 'Unknown connector',
  unparseable_document: 'Unparseable feed document',
  source_exists: 'Source already exists',
  source_has_signals: 'Source has signals',
};

/**
 * The one error the app throws: rendered as RFC 9457 problem+json with a stable `code`.
 * @example throw new ApiError(404, 'not_found', 'No signal with that id.')
 */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
    this.name = 'ApiError';
  }

  get title(): string {
    return TITLES[this.code] ?? this.code;
  }

  toJSON() {
    return {
      type: `https://signal-intel.dev/problems/${this.code.replaceAll('_', '-')}`,
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

/** Writes `error` as problem+json on `c`. */
export function problemResponse(c: Context, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers ?? {})) c.header(name, value);
  c.header('Content-Type', 'application/problem+json; charset=utf-8');
  c.header('Cache-Control', 'no-store');
  // Our own failures carry the request id, so a user can quote it and we can find its log lines.
  const requestId = error.status >= 500 ? (c.get('requestId') as string | undefined) : undefined;
  const body = requestId ? { ...error.toJSON(), request_id: requestId } : error.toJSON();
  return c.body(JSON.stringify(body), error.status);
}
