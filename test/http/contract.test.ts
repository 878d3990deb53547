import { describe, expect, it } from 'vitest';
import { createApp, openApiDocument } from '../../src/app';
import { contractViolations, theContract } from '../support/contract';

type Operation = {
  operationId?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Array<{ name?: string; $ref?: string }>;
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
};
const doc = openApiDocument(createApp()) as unknown as {
  info: { license?: { name: string }; contact?: { url: string } };
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: { parameters: Array<{ name: string }>; requestBody: unknown } }>;
};
const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ path, method, op })),
);
/** The docs page's static script: no input, no key, no rate limit, so no 4xx. */
const STATIC = ['/api/v1/docs/scalar.js'];

const problem = (status: number, extra: Record<string, string> = {}) =>
  new Response(JSON.stringify({ type: 'about:blank', title: 'x', status, detail: 'x', code: 'x' }), {
    status,
    headers: { 'Content-Type': 'application/problem+json; charset=utf-8', ...extra },
  });
const check = (method: string, path: string, response: Response, body: string) =>
  contractViolations(method, new URL(path, 'http://api.test'), response, body);

describe('the OpenAPI document', () => {
  it('names, tags and secures every operation, with unique operationIds', () => {
    const ids = operations.map(({ op }) => op.operationId);
    expect(ids.every(Boolean)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { op } of operations) {
      expect(op.tags?.length).toBeGreaterThan(0);
      expect(Array.isArray(op.security)).toBe(true);
    }
    expect(doc.paths['/api/v1/stats']!.get!.security).toEqual([]);
    expect(doc.info.license?.name).toBeTruthy();
    expect(doc.info.contact?.url).toBeTruthy();
  });

  it('declares a 4xx, 500 and 503 problem on every operation but the static docs script', () => {
    for (const { path, method, op } of operations) {
      if (STATIC.includes(path)) continue;
      const statuses = Object.keys(op.responses);
      expect(
        statuses.some((s) => s.startsWith('4')),
        `${method} ${path}`,
      ).toBe(true);
      for (const status of ['500', '503']) {
        // The widget shows its errors inside the frame, as a small HTML page (docs/feeds-export-embed.md).
        const type = path === '/embed' ? 'text/html' : 'application/problem+json';
        expect(op.responses[status]?.content, `${method} ${path} ${status}`).toHaveProperty([type]);
      }
    }
  });

  it('declares 429 with Retry-After and the rate-limit headers wherever a limit applies', () => {
    for (const { path, method, op } of operations) {
      if (path.startsWith('/api/v1/admin/') || STATIC.includes(path)) continue;
      const limited = op.responses['429'];
      expect(limited, `${method} ${path}`).toBeDefined();
      expect(Object.keys(limited!.headers ?? {})).toEqual(
        expect.arrayContaining([
          'Retry-After',
          'X-RateLimit-Limit',
          'X-RateLimit-Remaining',
          'X-RateLimit-Reset',
        ]),
      );
    }
  });

  it('declares 304, ETag and If-None-Match together on every conditional read', () => {
    const conditional = operations.filter(({ op }) => op.responses['304']);
    expect(conditional.map(({ path }) => path).sort()).toEqual(
      [
        '/api/export',
        '/api/v1/clusters',
        '/api/v1/feed',
        '/api/v1/map.svg',
        '/api/v1/freshness',
        '/api/v1/stats',
        '/embed',
        '/embed/data',
      ].sort(),
    );
    for (const { op } of conditional) {
      expect(op.responses['200']!.headers).toHaveProperty(['ETag']);
      expect(op.responses['304']!.headers).toHaveProperty(['ETag']);
      expect(op.parameters).toContainEqual({ $ref: '#/components/parameters/IfNoneMatch' });
    }
  });

  it('types the JSON Feed as an object and describes webhook deliveries with both signatures', () => {
    const feed = doc.paths['/api/v1/feed']!.get!.responses['200']!.content!['application/feed+json'];
    expect(feed).toEqual({ schema: { $ref: '#/components/schemas/JsonFeed' } });
    const delivery = doc.webhooks.signals!.post;
    expect(delivery.parameters.map((p) => p.name)).toEqual(
      expect.arrayContaining([
        'X-Service-Delivery',
        'X-Service-Signature-256',
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]),
    );
    expect(JSON.stringify(delivery.requestBody)).toContain('#/components/schemas/WebhookPayload');
  });
});

describe('the response validator', () => {
  const requestId = { 'X-Request-Id': '0b6f3c1e-2f7a-4d0e-9a57-4c1d2e3f4a5b' };

  it('accepts a declared answer, and fails one missing its declared body', () => {
    expect(check('GET', '/api/v1/signals', problem(401, requestId), '')).toEqual([
      expect.stringContaining('empty body'),
    ]);
    const response = problem(401, requestId);
    expect(
      check(
        'GET',
        '/api/v1/signals',
        response,
        JSON.stringify({ type: 't', title: 't', status: 401, detail: 'd', code: 'c' }),
      ),
    ).toEqual([]);
  });

  it('fails an undeclared status, an undeclared content type and a body off its schema', () => {
    const body = JSON.stringify({ type: 't', title: 't', status: 409, detail: 'd', code: 'c' });
    expect(check('GET', '/api/v1/signals', problem(409), body)).toEqual([
      expect.stringContaining('status not declared'),
    ]);
    const html = new Response('<p>hi</p>', { status: 200, headers: { 'Content-Type': 'text/html' } });
    expect(check('GET', '/api/v1/signals', html, '<p>hi</p>')).toEqual([
      expect.stringContaining('content type text/html not declared'),
    ]);
    const page = new Response('{"data":[{"id":1}]}', {
      status: 200,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(check('GET', '/api/v1/signals', page, '{"data":[{"id":1}]}')).toEqual([
      expect.stringContaining('does not match'),
    ]);
  });

  it('fails a declared header that is malformed, and a 429 without Retry-After', () => {
    const body = JSON.stringify({ type: 't', title: 't', status: 429, detail: 'd', code: 'c' });
    const malformed = problem(429, { 'Retry-After': 'soon', 'X-RateLimit-Tier': 'gold' });
    const violations = check('GET', '/api/v1/signals', malformed, body);
    expect(violations).toHaveLength(2);
    expect(violations).toEqual(
      expect.arrayContaining([
        expect.stringContaining('header Retry-After'),
        expect.stringContaining('header X-RateLimit-Tier'),
      ]),
    );
    expect(check('GET', '/api/v1/signals', problem(429), body)).toEqual([
      expect.stringContaining('required header Retry-After missing'),
    ]);
  });

  it('holds answers outside the document to a 404 problem', () => {
    const body = JSON.stringify({ type: 't', title: 't', status: 404, detail: 'd', code: 'not_found' });
    expect(check('GET', '/nowhere', problem(404), body)).toEqual([]);
    const plain = new Response('nope', { status: 200, headers: { 'Content-Type': 'text/plain' } });
    expect(check('GET', '/nowhere', plain, 'nope')).toHaveLength(2);
    expect(check('OPTIONS', '/api/v1/signals', new Response(null, { status: 204 }), '')).toBeNull();
    expect(theContract().route('/api/v1/keys')!.template).toBe('/api/v1/keys');
  });
});
