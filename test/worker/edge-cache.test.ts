import { beforeAll, describe, expect, it } from 'vitest';
import { fixtureItems } from '../support/fixture';
import { testDatabaseUrl } from '../support/services';
import { adminPost, issueKeyThrough, startNeonWorker } from './workerd';
import { closeAfterAll } from '../support/harness';

/** The `db` figure of a Server-Timing header, in ms. */
const dbMs = (res: Response) => Number(/db;dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '')?.[1]);

// The API Worker in workerd: public cached reads are kept in the Workers Cache API
// (caches.default) and a hot one is answered without the database.
describe.skipIf(!testDatabaseUrl())('API Worker in workerd: edge cache', () => {
  let worker: Awaited<ReturnType<typeof startNeonWorker>>;
  let key: string;
  let lastIp = 0;

  const closing = closeAfterAll();
  beforeAll(async () => {
    worker = closing(await startNeonWorker());
    const ingest = await adminPost(worker, '/api/v1/admin/signals', fixtureItems());
    expect(ingest.status).toBe(200);
    key = await issueKeyThrough(worker, 'edge@example.org');
  }, 120_000);

  /** Each call from a client address of its own (TEST-NET-3): the edge copy is shared by all. */
  const get = (path: string, headers: Record<string, string> = {}) =>
    worker.fetch(path, { headers: { 'CF-Connecting-IP': `203.0.113.${++lastIp}`, ...headers } });
  /** The edge copy is written after the answer (waitUntil): ask until it is there. */
  const untilEdgeHit = async (path: string) => {
    for (let i = 0; i < 50; i++) {
      const res = await get(path);
      if (res.headers.get('x-edge-cache') === 'HIT') return res;
      await res.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${path} never came from the edge cache`);
  };

  it.each([
    '/api/v1/stats',
    '/api/v1/clusters?days=30',
    '/api/export?format=csv&limit=5',
    '/api/v1/map.svg?days=7',
  ])(
    '%s: the first read reaches the database, the next ones are answered at the edge without it',
    async (path) => {
      const first = await get(path);
      expect(first.status).toBe(200);
      expect(first.headers.get('x-edge-cache')).toBeNull();
      expect(dbMs(first)).toBeGreaterThan(0);
      const body = await first.text();

      const hit = await untilEdgeHit(path);
      expect(hit.status).toBe(200);
      expect(dbMs(hit)).toBe(0);
      expect(hit.headers.get('server-timing')).toMatch(/store;dur=0\.0/);
      expect(await hit.text()).toBe(body);
      expect(hit.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
      expect(hit.headers.get('x-ratelimit-remaining')).toBeNull(); // never another caller's figures

      const tag = hit.headers.get('etag')!;
      const notModified = await get(path, { 'If-None-Match': tag });
      expect(notModified.status).toBe(304);
      expect(notModified.headers.get('x-edge-cache')).toBe('HIT');
    },
  );

  it('a request with a key is answered by the app, never from the shared copy', async () => {
    await untilEdgeHit('/api/v1/stats');
    const keyed = await get('/api/v1/stats', { 'X-Api-Key': key });
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get('x-edge-cache')).toBeNull();
    const wrong = await get('/api/v1/stats', { 'X-Api-Key': 'sig_not_a_real_key' });
    expect(wrong.status).toBe(401);
  });

  it('with the database gone, a hot public read is still answered from the edge', async () => {
    const path = '/api/v1/clusters?days=7';
    await untilEdgeHit(path);
    await worker.bridge.close();
    // A read the edge does not hold fails without its database (5xx)…
    const cold = await get('/api/v1/clusters?days=6');
    expect(cold.status).toBeGreaterThanOrEqual(500);
    // …while the hot one never needed it.
    const hot = await get(path);
    expect(hot.status).toBe(200);
    expect(hot.headers.get('x-edge-cache')).toBe('HIT');
  });
});
