import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../src/db/client';
import { ingestSignals } from '../src/ingest/pipeline';
import { fixtureItems } from './support/fixture';
import { ADMIN_TOKEN, createKey, startTestApp, type TestApp, testPglite } from './support/harness';

type Schema = {
  type?: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  example?: unknown;
};
type Parameter = { name: string; in: 'query' | 'path' | 'header'; required?: boolean; schema?: Schema };
type Operation = {
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: unknown;
  responses: Record<string, unknown>;
};
type Document = { paths: Record<string, Record<string, Operation>>; components: Record<string, any> };

/** A small seeded generator (mulberry32), so a failing draw can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Values that break the parameter's schema: outside its bounds, of the wrong type, not in its
 * enum, too long or too short, not matching its pattern or format. Each must be refused.
 */
function invalidValues(schema: Schema): string[] {
  const bad: string[] = [];
  if (schema.type === 'integer' || schema.type === 'number') {
    if (schema.minimum !== undefined) bad.push(String(schema.minimum - 1));
    if (schema.maximum !== undefined) bad.push(String(schema.maximum + 1));
    if (schema.type === 'integer') bad.push('1.5');
    bad.push('abc', '');
  } else if (schema.enum) {
    bad.push('not-a-member', schema.enum[0]!.toUpperCase() + '!', '');
  } else if (schema.type === 'string') {
    if (schema.maxLength !== undefined) bad.push('a'.repeat(schema.maxLength + 1));
    if (schema.minLength) bad.push('a'.repeat(schema.minLength - 1));
    if (schema.pattern) {
      const pattern = new RegExp(schema.pattern, 'u');
      bad.push(...['!!', '\u0001x', '12,ab', 'zz-zz'].filter((v) => !pattern.test(v)).slice(0, 2));
    }
    if (schema.format === 'uuid') bad.push('not-a-uuid');
    if (schema.format === 'email') bad.push('not-an-email');
  }
  return [...new Set(bad)];
}

/** A value the parameter's schema accepts, drawn at random; undefined when none can be drawn. */
function validValue(schema: Schema, next: () => number): string | undefined {
  if (schema.enum) return schema.enum[Math.floor(next() * schema.enum.length)];
  if (schema.type === 'integer' || schema.type === 'number') {
    const min = schema.minimum ?? 0;
    const max = schema.maximum ?? min + 1000;
    const value = min + next() * (max - min);
    return schema.type === 'integer' ? String(Math.floor(value)) : value.toFixed(1);
  }
  const example: unknown = schema.example;
  if (example === undefined || example === null) return undefined;
  return typeof example === 'string' || typeof example === 'number' || typeof example === 'boolean'
    ? String(example)
    : JSON.stringify(example);
}

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
    database = await testPglite();
    await ingestSignals(database.db, fixtureItems());
    app = await startTestApp(database.db);
    key = (await createKey(database.db, 'pro')).key;
    doc = await (await app.fetch('/api/v1/openapi.json')).json<Document>();
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  let requests = 0;

  /**
   * Records any 5xx, any error that is not problem+json, and any answer outside the document
   * (the test client checks each one); never throws, so every case runs.
   */
  async function probe(method: string, path: string, init: RequestInit = {}) {
    // A pro key allows 2,000 requests an hour: take a fresh one before running out.
    if (++requests % 1500 === 0) key = (await createKey(database.db, 'pro')).key;
    const headers = new Headers(init.headers);
    // Authenticated as both kinds of caller, so requests get past the guards into validation.
    headers.set('X-Api-Key', key);
    if (path.includes('/admin/')) headers.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    let res: Response;
    try {
      res = await app.fetch(path, { ...init, method: method.toUpperCase(), headers });
    } catch (error) {
      failures.push(String(error));
      return null;
    }
    const type = res.headers.get('content-type') ?? '';
    // A live stream that opened never ends by itself: its status and type are the answer.
    if (res.ok && type.startsWith('text/event-stream')) {
      await res.body?.cancel();
      return { status: res.status, text: '' };
    }
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
    return { status: res.status, text };
  }

  const parametersOf = (op: Operation): Parameter[] =>
    (op.parameters ?? []).map((p) =>
      '$ref' in p ? (doc.components.parameters[p.$ref.split('/').pop()!] as Parameter) : p,
    );

  /** The documented GET operations with their query parameters, required ones filled in. */
  const reads = () =>
    Object.entries(doc.paths).flatMap(([path, methods]) =>
      methods.get && !path.includes('{') ? [{ path, params: parametersOf(methods.get) }] : [],
    );
  const requiredQuery = (params: Parameter[]) =>
    Object.fromEntries(
      params.filter((p) => p.in === 'query' && p.required).map((p) => [p.name, String(p.schema!.example)]),
    );

  it('refuses every value outside a parameter schema with a 400 naming the parameter', async () => {
    let cases = 0;
    for (const { path, params } of reads()) {
      const base = requiredQuery(params);
      for (const param of params.filter((p) => p.in === 'query' && p.schema)) {
        for (const value of invalidValues(param.schema!)) {
          const query = new URLSearchParams({ ...base, [param.name]: value });
          const answer = await probe('get', `${path}?${query}`);
          cases += 1;
          if (!answer) continue;
          const label = `GET ${path}?${param.name}=${JSON.stringify(value).slice(0, 40)} → ${answer.status}`;
          if (answer.status !== 400) failures.push(`${label}: expected 400`);
          else if (
            !(JSON.parse(answer.text).errors ?? []).some((e: { path: string }) => e.path === param.name)
          )
            failures.push(`${label}: errors do not name ${param.name}: ${answer.text.slice(0, 200)}`);
        }
      }
    }
    // Path parameters with a format: a value outside it is a 400 or 404, never a 5xx.
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        for (const param of parametersOf(op).filter((p) => p.in === 'path' && p.schema)) {
          for (const value of invalidValues(param.schema!)) {
            const answer = await probe(method, path.replace(`{${param.name}}`, encodeURIComponent(value)), {
              ...(MUTATING.has(method)
                ? { body: '{}', headers: { 'Content-Type': 'application/json' } }
                : {}),
            });
            cases += 1;
            if (answer && answer.status !== 400 && answer.status !== 404)
              failures.push(`${method.toUpperCase()} ${path} with ${param.name}=${value} → ${answer.status}`);
          }
        }
      }
    }
    expect(cases).toBeGreaterThan(100);
    expect(failures).toEqual([]);
  }, 180_000);

  it('answers random valid parameters with a 2xx or a documented 4xx', async () => {
    const next = random(20261123);
    const statuses = new Map<number, number>();
    for (const { path, params } of reads()) {
      const query = params.filter((p) => p.in === 'query' && p.schema);
      for (let draw = 0; draw < 12; draw += 1) {
        const values: Record<string, string> = requiredQuery(params);
        for (const param of query) {
          if (param.required || next() < 0.5) continue;
          const value = validValue(param.schema!, next);
          if (value !== undefined) values[param.name] = value;
        }
        const target = `${path}?${new URLSearchParams(values)}`;
        const answer = await probe('get', target);
        if (!answer) continue;
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const declared = Object.keys(doc.paths[path]!.get!.responses);
        const ok = answer.status >= 200 && answer.status < 300;
        const documented4xx =
          answer.status >= 400 && answer.status < 500 && declared.includes(String(answer.status));
        if (!ok && !documented4xx)
          failures.push(`GET ${target} → ${answer.status}: ${answer.text.slice(0, 200)}`);
      }
    }
    // Most draws are plain valid requests; a 4xx can only come from a cross-field rule.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(100);
    expect(failures).toEqual([]);
  }, 180_000);

  /** A concrete path: each `{param}` filled with `fill`, encoded. */
  const concrete = (template: string, fill: string) =>
    template.replace(/\{[^}]+\}/g, encodeURIComponent(fill));

  it('never answers 5xx or a non-problem+json error', async () => {
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method, op })),
    );
    expect(operations.length).toBeGreaterThan(5);

    for (const { path, method, op } of operations) {
      const query = parametersOf(op).filter((p) => p.in === 'query');
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
