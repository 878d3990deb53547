import type { MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppEnv } from '../deps';
import { ifNoneMatchHits } from './etag';

/** The part of the Workers Cache API used here (`caches.default`). */
export interface EdgeCache {
  match(request: Request): Promise<Response | undefined>;
  put(request: Request, response: Response): Promise<void>;
}

/** `caches.default` on Workers; undefined on Node, where the middleware does nothing. */
const workersEdgeCache = (): EdgeCache | undefined =>
  (globalThis as { caches?: { default?: EdgeCache } }).caches?.default;

/** Headers that belong to one request and its caller, never to a stored answer. */
const PER_REQUEST = [
  'server-timing',
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-tier',
  'retry-after',
  'x-cache',
  'set-cookie',
  'date',
];

/** A request with a key is answered for that key (its limits, its tier): never from a shared copy. */
const carriesCredentials = (request: Request) =>
  request.headers.has('x-api-key') ||
  request.headers.has('authorization') ||
  new URL(request.url).searchParams.has('api_key');

/**
 * Serves public cached reads from the Workers Cache API, keyed by the full URL, for as long as
 * the answer's own `Cache-Control: public, max-age` allows: a hot public read is answered at the
 * edge without reaching the database or the store (`X-Edge-Cache: HIT`, `Server-Timing` db 0).
 * Only anonymous GETs whose answer is a `public` 200 are kept; a matching `If-None-Match` gets
 * a 304. A hit skips the per-IP limit, which exists to protect the database. On Node there is
 * no `caches.default` and the middleware passes every request through. A public cached read
 * opts in by putting it first in its route's `middleware`, before `access`.
 */
export function edgeCache(given?: EdgeCache): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const cache = given ?? workersEdgeCache();
    if (!cache || c.req.method !== 'GET' || carriesCredentials(c.req.raw)) return next();
    const key = new Request(c.req.url, { method: 'GET' });
    const { log, waitUntil } = c.env.deps;
    const stored = await cache.match(key).catch((error: unknown) => {
      log.warn('edge cache unavailable', { error: String(error) });
      return undefined;
    });
    if (stored) {
      const headers: Record<string, string> = { 'X-Edge-Cache': 'HIT' };
      stored.headers.forEach((value, name) => {
        if (!PER_REQUEST.includes(name)) headers[name] = value;
      });
      const tag = stored.headers.get('etag');
      if (tag && ifNoneMatchHits(c.req.header('if-none-match'), tag)) {
        const validators: Record<string, string> = { ETag: tag, 'X-Edge-Cache': 'HIT' };
        const control = stored.headers.get('cache-control');
        if (control) validators['Cache-Control'] = control;
        return c.body(null, 304, validators);
      }
      return c.body(await stored.arrayBuffer(), stored.status as ContentfulStatusCode, headers);
    }
    await next();
    const res = c.res;
    const control = res.headers.get('cache-control') ?? '';
    const maxAge = Number(/max-age=(\d+)/.exec(control)?.[1] ?? 0);
    if (res.status !== 200 || !/\bpublic\b/.test(control) || maxAge <= 0 || res.headers.has('set-cookie')) {
      return;
    }
    const copy = new Response(res.clone().body, res);
    for (const name of PER_REQUEST) copy.headers.delete(name);
    waitUntil(
      cache
        .put(key, copy)
        .catch((error: unknown) => log.warn('edge cache write failed', { error: String(error) })),
    );
  };
}
