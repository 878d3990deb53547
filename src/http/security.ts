import type { MiddlewareHandler } from 'hono';

/**
 * Security headers of DESIGN §3. `/embed` sets its own policy (it must be frameable);
 * every other response forbids framing and sniffing and sends no referrer.
 */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'no-referrer');
  if (!c.req.path.startsWith('/embed')) c.header('Content-Security-Policy', "frame-ancestors 'none'");
};
