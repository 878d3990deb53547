import type { Context } from 'hono';
import type { AppEnv } from '../deps';
import { requestOrigin } from './origin';
import { ApiError } from './problem';

/**
 * The public origin for links in feeds and the widget, without a trailing slash:
 * `PUBLIC_BASE_URL` when set (production must set it), else the request's own origin, but only
 * when its `Host` header is a valid host, so no header can write into a link (400 otherwise).
 */
export function publicBaseUrl(c: Context<AppEnv>): string {
  const configured = c.env.deps.config.PUBLIC_BASE_URL;
  if (configured) return configured.replace(/\/+$/, '');
  const origin = requestOrigin(c);
  if (origin === undefined) {
    throw new ApiError(
      400,
      'invalid_request',
      'The Host header is not a valid host name with an optional port.',
      [{ path: 'header.host', message: 'must be a host name or IP address, with an optional port' }],
    );
  }
  return origin;
}
