import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../deps';
import { STORE_TIMEOUT_MS, withDeadline } from '../store/deadline';
import { ApiError } from './problem';
import { applyLimit, countHit, RULES } from './ratelimit';

/** Constant-time string comparison (no early exit on the first differing byte). */
function safeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/**
 * Guards the operator API with `Authorization: Bearer <ADMIN_TOKEN>`. With no token
 * configured the admin routes do not exist (404), so nothing is open by omission. Failed
 * attempts are counted per client IP (RULES.adminFailures); once over, every admin request from
 * that IP is refused with 429 before the token is even compared, so guessing stops there, right
 * guess or not. When the store cannot answer, the check fails open like every other limit.
 */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { config, store, clientIp, log } = c.env.deps;
  const token = config.ADMIN_TOKEN;
  if (!token) throw new ApiError(404, 'not_found', `No route for ${c.req.method} ${c.req.path}.`);
  const ip = clientIp(c);
  const state = await withDeadline(store.peek(RULES.adminFailures, ip), STORE_TIMEOUT_MS).catch(
    (error: unknown) => {
      log.warn('store unavailable; admin failure limit not checked', { error: String(error) });
      return null;
    },
  );
  if (state && state.remaining <= 0) applyLimit(c, 'public', { ...state, success: false });
  const presented = c.req.header('authorization')?.match(/^Bearer\s+(\S+)$/i)?.[1] ?? '';
  if (!safeEqual(presented, token)) {
    applyLimit(c, 'public', await countHit(c, RULES.adminFailures, ip));
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
