import { describe, expect, it } from 'vitest';
import { admin, json, withTestApp } from '../support/harness';

describe('key issuing', () => {
  const app = withTestApp();

  it('signs up a free account whose key works at once', async () => {
    const res = await app.fetch('/api/v1/keys', json({ email: 'New.User@Example.org', name: 'laptop' }));
    expect(res.status).toBe(201);
    const body = await res.json<{
      id: string;
      key: string;
      prefix: string;
      tier: string;
      name: string;
    }>();
    expect(body).toMatchObject({ tier: 'free', name: 'laptop', prefix: body.key.slice(0, 12) });
    const signals = await app.fetch('/api/v1/signals', { headers: { 'X-Api-Key': body.key } });
    expect(signals.status).toBe(200);
    expect(signals.headers.get('x-ratelimit-tier')).toBe('free');
  });

  it('refuses a second signup for the same email, whatever its case', async () => {
    const res = await app.fetch('/api/v1/keys', json({ email: 'new.user@example.org' }));
    expect(res.status).toBe(409);
    const problem = await res.json<{ code: string; detail: string }>();
    expect(problem.code).toBe('account_exists');
    // What to do next: add a key with one of the account's keys, or have the operator reissue one.
    expect(problem.detail).toContain('POST /api/v1/keys with one of its keys');
    expect(problem.detail).toContain('npm run cli -- keys create --email');
  });

  it.each([
    ['missing_api_key', {}],
    ['invalid_api_key', { 'X-Api-Key': 'sig_notarealkey' }],
  ])('answers %s with where a key comes from', async (code, headers) => {
    const res = await app.fetch('/api/v1/signals', { headers });
    expect(res.status).toBe(401);
    const problem = await res.json<{ code: string; detail: string }>();
    expect(problem.code).toBe(code);
    expect(problem.detail).toContain('POST /api/v1/keys with {"email": "you@example.org"}');
    expect(problem.detail).toContain('npm run cli -- keys create');
  });

  it.each([
    [{ email: 'not-an-email' }, 'email'],
    [{}, 'email'],
    [{ email: 'a@example.org', tier: 'pro' }, 'body'],
    [{ email: 'b@example.org', name: '' }, 'name'],
  ])('rejects %j', async (body, field) => {
    const res = await app.fetch('/api/v1/keys', json(body));
    expect(res.status).toBe(400);
    const problem = await res.json<{ code: string; errors: { path: string; message: string }[] }>();
    expect(problem.code).toBe('invalid_request');
    expect(problem.errors.map((e) => e.path)).toContain(field);
  });

  it('rejects a body that is not JSON, or not sent as JSON', async () => {
    const broken = await app.fetch('/api/v1/keys', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"email":',
    });
    expect(broken.status).toBe(400);
    expect((await broken.json<{ code: string }>()).code).toBe('invalid_json');
    const form = await app.fetch('/api/v1/keys', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'email=a@b.c',
    });
    expect(form.status).toBe(415);
    const big = await app.fetch(
      '/api/v1/keys',
      json({ email: 'c@example.org', name: 'x'.repeat(70 * 1024) }),
    );
    expect(big.status).toBe(413);
  });

  it('lets the operator issue pro keys and change tiers', async () => {
    const res = await app.fetch('/api/v1/admin/keys', admin(json({ email: 'ops@example.org', tier: 'pro' })));
    expect(res.status).toBe(201);
    const { key } = await res.json<{ key: string }>();
    const first = await app.fetch('/api/v1/signals', { headers: { 'X-Api-Key': key } });
    expect(first.headers.get('x-ratelimit-tier')).toBe('pro');
    expect(first.headers.get('x-ratelimit-limit')).toBe('2000');

    const patch = await app.fetch(
      '/api/v1/admin/accounts/ops@example.org',
      admin({ ...json({ tier: 'free' }), method: 'PATCH' }),
    );
    expect(patch.status).toBe(200);
    const after = await app.fetch('/api/v1/signals', { headers: { 'X-Api-Key': key } });
    expect(after.headers.get('x-ratelimit-tier')).toBe('free');

    const unknown = await app.fetch(
      '/api/v1/admin/accounts/nobody@example.org',
      admin({ ...json({ tier: 'pro' }), method: 'PATCH' }),
    );
    expect(unknown.status).toBe(404);
    const wrongToken = await app.fetch('/api/v1/admin/keys', {
      ...json({ email: 'x@example.org', tier: 'pro' }),
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer wrong' },
    });
    expect(wrongToken.status).toBe(401);
  });
});
