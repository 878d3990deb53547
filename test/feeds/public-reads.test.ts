import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../src/store/memory';
import type { Store } from '../../src/store/types';
import { memoryLogger, startTestApp, type TestApp, withTestApp, seedFixtures } from '../support/harness';

const PUBLIC_READS = ['/api/v1/feed', '/api/export', '/embed', '/embed/data', '/api/v1/map.svg'];

describe('feeds, export and embed as public reads', () => {
  let broken: TestApp;
  const log = memoryLogger();
  const app = withTestApp({ seed: seedFixtures });
  beforeAll(async () => {
    // A store whose cache is down (its limiter still works): reads must still be served.
    const store: Store = {
      ...memoryStore(),
      get: () => Promise.reject(new Error('cache down')),
      set: () => Promise.reject(new Error('cache down')),
    };
    broken = await startTestApp(app.db, { store, deps: { log } });
  });
  afterAll(async () => {
    await broken?.close();
  });

  it('documents each with its 200, 304 and error statuses', async () => {
    const doc = await (
      await app.fetch('/api/v1/openapi.json')
    ).json<{
      paths: Record<string, { get: { responses: Record<string, unknown> } }>;
    }>();
    for (const path of PUBLIC_READS) {
      expect(Object.keys(doc.paths[path]!.get.responses).sort()).toEqual([
        '200',
        '304',
        '400',
        '401',
        '429',
        '500',
        // The map's PNG, on a deployment that cannot rasterise (a Worker).
        ...(path === '/api/v1/map.svg' ? ['501'] : []),
        '503',
      ]);
    }
  });

  it.each(PUBLIC_READS)('%s is served without a key under the per-IP limit', async (path) => {
    const res = await app.fetch(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-tier')).toBe('public');
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it.each(PUBLIC_READS)('%s renders fresh when the cache is down', async (path) => {
    // Only the lines this request wrote: an earlier case's line must not answer for this one.
    const before = log.lines.length;
    const res = await broken.fetch(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toMatch(/^"/);
    const written = log.lines.slice(before).map((line) => line.message);
    expect(written).toContain('public cache unavailable; rendering fresh');
  });
});
