import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../src/db/client';
import { pgliteDatabase } from '../src/db/node';
import { ingestSignals } from '../src/ingest/pipeline';
import { fixtureItems } from './support/fixture';
import { ADMIN_TOKEN, createKey, startTestApp, type TestApp } from './support/harness';

type Parameter = { name: string; in: 'query' | 'path' | 'header'; schema?: Record<string, unknown> };
type Operation = { parameters?: Parameter[]; requestBody?: unknown };
type Document = { paths: Record<string, Record<string, Operation>> };

/** Values that break some rule for most parameter types: wrong type, range, format, size, encoding. */
const BAD_VALUES = [
  '',
  'abc',
  '-1',
  '0',
  '1e309',
  'NaN',
  '9999999999999999999999',
  '1.5',
  'true',
  ',,,',
  '2024-13-45T99:99:99Z',
  "' OR 1=1 --",
  '%00',
  '\u0000',
  '😀'.repeat(50),
  'x'.repeat(5000),
  '[]',
  '{"a":1}',
  '-90,-180,90',
  '10,10,-10,-10',
];

const BAD_BODIES: { contentType?: string; body: string }[] = [
  { contentType: 'application/json', body: '' },
  { contentType: 'application/json', body: '{' },
  { contentType: 'application/json', body: 'null' },
  { contentType: 'application/json', body: '42' },
  { contentType: 'application/json', body: '"text"' },
  { contentType: 'application/json', body: '[]' },
  { contentType: 'application/json', body: '[1, null, "x", {}]' },
  { contentType: 'application/json', body: '{}' },
  { contentType: 'application/json', body: '{"email": 5, "name": [], "tier": "god", "extra": true}' },
  { contentType: 'application/json', body: '{"email": "' + 'a'.repeat(70_000) + '"}' },
  { contentType: 'application/json', body: '{"email": "a\\u0000@b.c", "name": "\\u0000"}' },
  { contentType: 'application/json', body: '[{"title": "\\u0000", "source_url": "https://x.test/\\u0000"}]' },
  { contentType: 'application/json', body: '{"name": "a\\u0000b"}' },
  { contentType: 'application/json', body: '{"__proto__": {"admin": true}}' },
  { contentType: 'application/json', body: '[' + '['.repeat(5000) + ']'.repeat(5000) + ']' },
  { contentType: 'text/plain', body: '{"email":"a@b.c"}' },
  { body: 'not json at all' },
];

// A complete, otherwise valid ingest item whose text carries a NUL (Postgres refuses NUL in text).
for (const field of ['title', 'content_display', 'city', 'source_url']) {
  const item = {
    ...fixtureItems()[0]!,
    source_url: 'https://fuzz.test/nul',
    [field]: 'https://fuzz.test/a\u0000b',
  };
  BAD_BODIES.push({ contentType: 'application/json', body: JSON.stringify([item]) });
}

const MUTATING = new Set(['post', 'patch', 'put', 'delete']);

describe('fuzz every documented endpoint', () => {
  let database: DatabaseHandle;
  let app: TestApp;
  let key: string;
  let doc: Document;
  const failures: string[] = [];

  beforeAll(async () => {
    database = await pgliteDatabase();
    await ingestSignals(database.db, fixtureItems());
    app = await startTestApp(database.db);
    key = (await createKey(database.db, 'pro')).key;
    doc = (await (await app.fetch('/api/v1/openapi.json')).json()) as Document;
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  /** Records any 5xx, or any error that is not problem+json; never throws so every case runs. */
  async function probe(method: string, path: string, init: RequestInit = {}) {
    const headers = new Headers(init.headers);
    // Authenticated as both kinds of caller, so requests get past the guards into validation.
    headers.set('X-Api-Key', key);
    if (path.includes('/admin/')) headers.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    const res = await app.fetch(path, { ...init, method: method.toUpperCase(), headers });
    const type = res.headers.get('content-type') ?? '';
    const text = await res.text();
    const label = `${method.toUpperCase()} ${path.slice(0, 120)} → ${res.status} ${type}`;
    if (res.status >= 500) failures.push(`${label}: ${text.slice(0, 200)}`);
    else if (res.status >= 400) {
      // The widget shows its errors as a readable page in its frame (text/html, documented so).
      const widgetPage = method.toUpperCase() === 'GET' && path.split('?')[0] === '/embed';
      if (widgetPage && type.startsWith('text/html')) return;
      if (!type.startsWith('application/problem+json')) failures.push(label);
      else {
        const problem = JSON.parse(text) as { status?: number; code?: string };
        if (problem.status !== res.status || typeof problem.code !== 'string')
          failures.push(`${label}: ${text}`);
      }
    }
  }

  /** A concrete path: each `{param}` filled with `fill`, encoded. */
  const concrete = (template: string, fill: string) =>
    template.replace(/\{[^}]+\}/g, encodeURIComponent(fill));

  it('never answers 5xx or a non-problem+json error', async () => {
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method, op })),
    );
    expect(operations.length).toBeGreaterThan(5);

    for (const { path, method, op } of operations) {
      const query = (op.parameters ?? []).filter((p) => p.in === 'query');
      const base = concrete(path, '00000000-0000-4000-8000-000000000000');
      // Path parameters: malformed ids and odd strings.
      for (const value of ['not-a-uuid', '..', '%', ...BAD_VALUES.slice(0, 8)]) {
        if (path.includes('{')) await probe(method, concrete(path, value));
      }
      // Each query parameter broken alone, then all of them at once (errors must list them all).
      for (const param of query) {
        for (const value of BAD_VALUES) {
          await probe(method, `${base}?${new URLSearchParams({ [param.name]: value })}`);
        }
        await probe(method, `${base}?${param.name}=1&${param.name}=2`);
      }
      if (query.length) {
        await probe(method, `${base}?${new URLSearchParams(query.map((p) => [p.name, 'abc']))}`);
      }
      if (MUTATING.has(method)) {
        for (const { contentType, body } of BAD_BODIES) {
          await probe(method, base, {
            body,
            headers: contentType ? { 'Content-Type': contentType } : {},
          });
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('refuses NUL in text parameters and ingest fields as invalid_request naming the field', async () => {
    for (const name of ['search', 'city']) {
      const res = await app.fetch(`/api/v1/signals?${name}=a%00b`, { headers: { 'X-Api-Key': key } });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'invalid_request', errors: [{ path: name }] });
    }
    const item = { ...fixtureItems()[0]!, title: 'a\u0000b', source_url: 'https://fuzz.test/nul-title' };
    const res = await app.fetch('/api/v1/admin/signals', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify([item]),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      accepted: 0,
      rejected: 1,
      errors: [{ index: 0, errors: [{ path: 'title' }] }],
    });
  });
});
