import type { Hono } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';

/** Methods every path answers whatever its routes: `OPTIONS` is a CORS preflight (security.ts). */
const ALWAYS = ['OPTIONS'];

/**
 * The methods each path allows, read from the app's registered routes (middleware, registered
 * for every method, does not count), so `Allow` cannot drift from the routes. `HEAD` comes with
 * `GET`, as Hono serves it from the same handler. Build it after every route is registered.
 */
export function allowedMethods(app: Pick<Hono, 'routes'>): (path: string) => string[] {
  const router = new TrieRouter<string>();
  const methods = new Set<string>();
  for (const route of app.routes) {
    if (route.method === 'ALL') continue;
    router.add(route.method, route.path, route.method);
    methods.add(route.method);
    if (route.method === 'GET') {
      router.add('HEAD', route.path, 'HEAD');
      methods.add('HEAD');
    }
  }
  return (path) => {
    const allowed = [...methods].filter((method) => router.match(method, path)[0].length > 0);
    return allowed.length ? [...allowed, ...ALWAYS] : [];
  };
}
