import { describe, expect, it } from 'vitest';
import { withTestApp, seedFixtures } from '../support/harness';

/**
 * Issue 12 item 7: public and keyed analytics cannot be made to recompute per request, and a
 * list cannot be asked for an unbounded depth. The bounds of the clusters answer are pinned in
 * test/analytics/clusters.test.ts and the statement timeout (503, connection usable after) in
 * test/signals/timeout.test.ts; this file pins what keeps an anonymous caller from pinning a server.
 */
describe('expensive reads', () => {
  const app = withTestApp({ seed: seedFixtures, key: 'pro' });

  const get = (path: string, withKey = false) =>
    app.fetch(path, withKey ? { headers: { 'X-Api-Key': app.key } } : {});

  it('computes public clusters once per selection: every min_signals after the first is a cache hit', async () => {
    const first = await get('/api/v1/clusters?days=3');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-cache')).toBe('MISS');
    for (const query of ['days=3', 'days=3&min_signals=2', 'days=3&min_signals=5']) {
      const res = await get(`/api/v1/clusters?${query}`);
      expect(res.status, query).toBe(200);
      expect(res.headers.get('x-cache'), query).toBe('HIT');
    }
  });

  it('keeps one compound-crises cache entry whatever the parameters', async () => {
    const first = await get('/api/v1/compound-crises', true);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-cache')).toBe('MISS');
    for (const query of [
      'window_type=acute',
      'window_type=chronic&min_score=3',
      'min_score=9.5&limit=1',
      'limit=100&min_score=0.1',
    ]) {
      const res = await get(`/api/v1/compound-crises?${query}`, true);
      expect(res.status, query).toBe(200);
      expect(res.headers.get('x-cache'), query).toBe('HIT');
    }
  });

  it('refuses an offset past 10,000 with a 400 that points at cursor, and accepts 10,000', async () => {
    const deep = await get('/api/v1/signals?offset=10001', true);
    expect(deep.status).toBe(400);
    const body = await deep.json<{ code: string; errors: { path: string; message: string }[] }>();
    expect(body.code).toBe('invalid_request');
    expect(body.errors[0]!.path).toBe('offset');
    expect(body.errors[0]!.message).toMatch(/cursor/);
    expect((await get('/api/v1/signals?offset=10000', true)).status).toBe(200);
  });
});
