import { describe, expect, it } from 'vitest';
import { isPassThroughParam, suggestParam } from '../../src/http/unknown-params';
import { documentedPaths } from '../support/document';
import { ADMIN_TOKEN, seedFixtures, withTestApp } from '../support/harness';

type Problem = { code: string; detail: string; errors: { path: string; message: string }[] };

/** Every operation of the document, each asked with one parameter nobody declares. */
const operations = documentedPaths().flatMap(({ path, methods }) =>
  methods.map((method) => ({ method, path })),
);

describe('unknown query parameters', () => {
  const suite = withTestApp({ seed: seedFixtures, key: 'pro' });
  // Both credentials, so key and admin routes reach their parameter check instead of a 401.
  const credentials = () => ({ 'X-Api-Key': suite.key, Authorization: `Bearer ${ADMIN_TOKEN}` });

  it('covers the whole document', () => {
    expect(operations.length).toBeGreaterThan(35);
  });

  it.each(operations)('$method $path answers 400 naming the parameter', async ({ method, path }) => {
    // A JSON body where one may go, so a body route's media-type check passes and the query is next.
    const body = method === 'GET' || method === 'DELETE' ? {} : { body: '{}' };
    const res = await suite.fetch(`${path}?frobnicate=1&utm_source=newsletter&_=1732650000`, {
      method,
      headers: { ...credentials(), 'Content-Type': 'application/json' },
      ...body,
    });
    expect(res.status, await res.clone().text()).toBe(400);
    if (path === '/embed') {
      // The widget shows its errors as a page inside the host site, naming the parameter too.
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain('frobnicate');
      return;
    }
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = await res.json<Problem>();
    expect(problem.code).toBe('invalid_request');
    // Tracking and cache-busting parameters are let through, so only the foreign one is named.
    expect(problem.errors).toEqual([{ path: 'frobnicate', message: 'unknown parameter' }]);
    expect(problem.detail).toContain('frobnicate');
  });

  it.each([
    ['/api/v1/signals?minScore=7', 'minScore', 'min_score'],
    ['/api/v1/signals?layer=cyber', 'layer', 'layers'],
    ['/api/v1/signals?contry=UA', 'contry', 'country'],
    ['/api/v1/clusters?threatLayer=cyber', 'threatLayer', 'threat_layer'],
    ['/api/v1/compound-crises?min-score=5', 'min-score', 'min_score'],
  ])('%s names %s and suggests %s', async (url, given, meant) => {
    const res = await suite.fetch(url, { headers: credentials() });
    expect(res.status).toBe(400);
    const body = await res.json<Problem>();
    expect(body.errors).toEqual([{ path: given, message: `unknown parameter; did you mean \`${meant}\`?` }]);
  });

  it('tells a key sent as ?api_key= where keys go, outside the feed', async () => {
    const res = await suite.fetch(`/api/v1/signals?api_key=${suite.key}`);
    // The key in the query is not read here, so the request has no key at all.
    expect(res.status).toBe(401);
    const keyed = await suite.fetch(`/api/v1/signals?api_key=${suite.key}`, { headers: credentials() });
    const body = await keyed.json<Problem>();
    expect(body.errors[0]!.message).toContain('X-Api-Key');
  });

  it.each([
    ['/api/v1/signals?layers=cyber&utm_source=newsletter&utm_campaign=nov&_=1732650000'],
    ['/api/v1/health?_=1'],
    ['/api/export?layers=cyber&utm_medium=email'],
    ['/api/v1/feed?format=json&utm_source=x'],
  ])('lets tracking and cache-busting parameters through: %s', async (url) => {
    const res = await suite.fetch(url, { headers: { 'X-Api-Key': suite.key } });
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it('still accepts the key as ?api_key= on the feed, where it is declared', async () => {
    const res = await suite.fetch(`/api/v1/feed?format=json&api_key=${suite.key}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-tier')).toBe('pro');
  });
});

describe('suggestParam', () => {
  const SIGNALS = ['layers', 'min_score', 'region', 'country', 'start', 'end', 'limit', 'offset'];
  it.each([
    ['minScore', SIGNALS, 'min_score'],
    ['MIN_SCORE', SIGNALS, 'min_score'],
    ['layer', SIGNALS, 'layers'],
    ['regions', SIGNALS, 'region'],
    ['ofset', SIGNALS, 'offset'],
    ['min_score', ['layer', 'minScore'], 'minScore'],
    ['layers', ['layer', 'country'], 'layer'],
    ['frobnicate', SIGNALS, undefined],
    ['q', SIGNALS, undefined],
    ['sort', SIGNALS, undefined],
  ])('%s among %j → %s', (name, known, meant) => {
    expect(suggestParam(name, known)).toBe(meant);
  });

  it('lets utm_* and _ through, and nothing else', () => {
    expect(['utm_source', 'utm_x', '_'].every(isPassThroughParam)).toBe(true);
    expect(['utm', '__', 'x_', 'UTM_source'].some(isPassThroughParam)).toBe(false);
  });
});
