import type { MiddlewareHandler } from 'hono';

const EXPOSED = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-RateLimit-Tier',
  'Retry-After',
  'ETag',
  'Content-Disposition',
  'X-Next-Cursor',
  'X-Request-Id',
  'Server-Timing',
].join(',');

/** The widget: the only page any other page (any origin, `file:`, `about:blank`) may frame. */
const FRAMEABLE_PATH = '/embed';

/**
 * CORS for any origin without credentials, and the security headers every answer carries: every
 * response forbids sniffing and sends no referrer; all but `/embed` (which sets its own
 * policy without `frame-ancestors`) forbid framing, by CSP and by `X-Frame-Options`. Any `OPTIONS` is answered as a preflight.
 *
 * Everything is set before the handler runs, on purpose: a header set on a finished response
 * (as `hono/cors` and an after-`next()` middleware do) makes Hono rebuild it around a stream,
 * which costs @hono/node-server its direct write path on every request.
 */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  c.header('Access-Control-Allow-Origin', '*');
  if (c.req.method === 'OPTIONS') {
    c.header('Access-Control-Allow-Methods', 'GET,POST,PATCH,DELETE,OPTIONS');
    c.header(
      'Access-Control-Allow-Headers',
      'Authorization,X-Api-Key,Content-Type,If-None-Match,X-Request-Id,Last-Event-ID',
    );
    c.header('Access-Control-Max-Age', '86400');
    return c.body(null, 204);
  }
  c.header('Access-Control-Expose-Headers', EXPOSED);
  c.header('Timing-Allow-Origin', '*');
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'no-referrer');
  if (c.req.path !== FRAMEABLE_PATH) {
    c.header('Content-Security-Policy', "frame-ancestors 'none'");
    c.header('X-Frame-Options', 'DENY');
  }
  await next();
};
