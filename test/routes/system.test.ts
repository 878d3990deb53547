import { describe, expect, it } from 'vitest';
import { startTestApp, testPglite, withTestApp, seedFixtures } from '../support/harness';

describe('system endpoints', () => {
  const now = new Date('2026-11-22T00:00:00Z');
  const app = withTestApp({ seed: seedFixtures, deps: { now: () => now } });

  it('health checks the database', async () => {
    const res = await app.fetch('/api/v1/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', database: 'ok', store: 'ok', time: now.toISOString() });
  });

  it('freshness reports the latest times, lag and stale sources', async () => {
    const body = await (
      await app.fetch('/api/v1/freshness')
    ).json<
      Record<string, unknown> & {
        stale_sources: { name: string }[];
      }
    >();
    expect(body.latest_published_at).toBe('2026-11-21T18:00:00.000Z');
    expect(typeof body.latest_ingested_at).toBe('string');
    expect(body.stale_source_hours).toBe(48);
    // Last seen before 2026-11-20T00:00Z: Markets Daily (17th) and Noticias Andinas (16th).
    expect(body.stale_sources.map((s) => s.name)).toEqual(['Noticias Andinas', 'Markets Daily']);
  });

  it('serves the OpenAPI 3.1 document and the docs page', async () => {
    const doc = await (
      await app.fetch('/api/v1/openapi.json')
    ).json<{
      openapi: string;
      paths: Record<string, unknown>;
    }>();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/v1/signals', '/api/v1/signals/{id}', '/api/v1/health', '/api/v1/keys']),
    );
    const page = await app.fetch('/api/v1/docs');
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toContain('/api/v1/openapi.json');
    const asJson = await app.fetch('/api/v1/docs', { headers: { Accept: 'application/json' } });
    expect((await asJson.json<{ openapi: string }>()).openapi).toBe('3.1.0');
  });

  it('documents the 401 of a public route as a bad key sent, the only way it answers one', async () => {
    const doc = await (
      await app.fetch('/api/v1/openapi.json')
    ).json<{
      paths: Record<
        string,
        { get: { security: unknown[]; responses: Record<string, { description: string }> } }
      >;
    }>();
    for (const path of ['/api/v1/health', '/api/v1/freshness', '/api/v1/stats', '/api/export']) {
      expect(doc.paths[path]!.get.security).toEqual([]);
      expect(doc.paths[path]!.get.responses['401']!.description).toMatch(/^Only when a key is sent/);
    }
    expect(doc.paths['/api/v1/signals']!.get.responses['401']!.description).toContain('missing_api_key');
    expect((await app.fetch('/api/v1/health')).status).toBe(200);
    const bad = await app.fetch('/api/v1/health', { headers: { 'X-Api-Key': 'sig_wrong' } });
    expect(bad.status).toBe(401);
    expect((await bad.json<{ code: string }>()).code).toBe('invalid_api_key');
  });

  it('sends security headers and open CORS without credentials', async () => {
    const res = await app.fetch('/api/v1/health', { headers: { Origin: 'https://elsewhere.example' } });
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('answers a CORS preflight with 204 and the methods and headers a browser may send', async () => {
    const res = await app.fetch('/api/v1/signals', {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://elsewhere.example',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'x-api-key',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toContain('GET');
    expect(res.headers.get('access-control-allow-headers')).toContain('X-Api-Key');
    expect(res.headers.get('access-control-max-age')).toBe('86400');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(await res.text()).toBe('');
  });

  it('sends the same headers on errors, which answer before any handler runs', async () => {
    const res = await app.fetch('/api/v1/signals');
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toContain('Retry-After');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
  });

  it('answers 503 problem+json with Retry-After when the database is down', async () => {
    const other = await testPglite();
    const down = await startTestApp(other.db);
    await other.close();
    try {
      const res = await down.fetch('/api/v1/health');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect((await res.json<{ code: string }>()).code).toBe('service_unavailable');
      const freshness = await down.fetch('/api/v1/freshness');
      expect(freshness.status).toBe(503);
      expect(freshness.headers.get('content-type')).toMatch(/problem\+json/);
    } finally {
      await down.close();
    }
  });
});
