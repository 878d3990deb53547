import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../deps';
import { ApiError } from './problem';

/** Constant-time string comparison (no early exit on the first differing byte). */
export function safeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/**
 * Guards the operator API with `Authorization: Bearer <ADMIN_TOKEN>`. With no token
 * configured the admin routes do not exist (404), so nothing is open by omission.
 */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = c.env.deps.config.ADMIN_TOKEN;
  if (!token) throw new ApiError(404, 'not_found', `No route for ${c.req.method} ${c.req.path}.`);
  const presented = c.req.header('authorization')?.match(/^Bearer\s+(\S+)$/i)?.[1] ?? '';
  if (!safeEqual(presented, token)) {
    throw new ApiError(
      401,
      'unauthorized',
      'The admin API needs Authorization: Bearer <ADMIN_TOKEN>.',
      undefined,
      {
        'WWW-Authenticate': 'Bearer realm="signal-intel-admin"',
      },
    );
  }
  await next();
};
