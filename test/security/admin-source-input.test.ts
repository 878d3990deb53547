import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_DEPTH_LIMIT, jsonDepth } from '../../src/http/body';
import { admin, createKey, startTestApp, type TestApp, withTestApp } from '../support/harness';

type Json = Record<string, any>;

/** `{"a":{"a":…{"a":1}…}}` nested `depth` objects deep, built as text (no recursion). */
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

const INTERNAL = [
  'http://169.254.169.254/latest/meta-data/',
  'http://127.0.0.1:8080/rss',
  'http://localhost/feed',
  'http://10.0.0.5/feed',
  'http://192.168.1.1/feed',
  'http://172.16.0.1/feed',
  'http://[::1]/feed',
  'http://[fd00::1]/feed',
  'http://[::ffff:127.0.0.1]/feed',
  'http://2130706433/feed',
  'http://0x7f.1/feed',
  'http://0.0.0.0/feed',
  'http://100.64.0.1/feed',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://kubernetes.default.svc/feed',
  'http://printer.local/feed',
  'http://intranet/feed',
];

describe('free-form JSON depth', () => {
  it('measures depth without recursion, and stops past the limit', () => {
    expect(jsonDepth({ a: [1, { b: 2 }] })).toBe(3);
    expect(jsonDepth(1)).toBe(0);
    expect(jsonDepth(JSON.parse(nested(100_000)))).toBe(JSON_DEPTH_LIMIT + 1);
  });
});

describe('admin source input', () => {
  let insecure: TestApp;
  const app = withTestApp({ timeout: 180_000, config: { WEBHOOK_ALLOW_INSECURE: false } });
  beforeAll(async () => {
    insecure = await startTestApp(app.db, { config: { WEBHOOK_ALLOW_INSECURE: true } });
  });
  afterAll(async () => {
    await insecure?.close();
  });

  const send = async (target: Pick<TestApp, 'fetch'>, method: string, path: string, body: string) => {
    const res = await target.fetch(
      path,
      admin({ method, headers: { 'Content-Type': 'application/json' }, body }),
    );
    return { status: res.status, body: await res.json<Json>() };
  };
  const source = (name: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ connector: 'rss', name, url: 'https://news.example.org/world.rss', ...extra });

  it('refuses options nested 5,000 deep with a 400, and stores nothing', async () => {
    const body = source('Deep').replace(/}$/, `,"options":${nested(5000)}}`);
    const res = await send(app, 'POST', '/api/v1/admin/sources', body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_request');
    const list = await app.fetch('/api/v1/admin/sources', admin());
    expect(JSON.stringify(await list.json())).not.toContain('"Deep"');
  });

  it('refuses options over 8 KiB', async () => {
    const res = await send(
      app,
      'POST',
      '/api/v1/admin/sources',
      source('Big', { options: { pad: 'x'.repeat(9000) } }),
    );
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: Json) => e.path)).toEqual(['options']);
  });

  it('bounds depth on every JSON body: webhooks and MCP too', async () => {
    const { key } = await createKey(app.db, 'pro');
    for (const path of ['/api/v1/webhooks', '/api/v1/mcp']) {
      const res = await app.fetch(path, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'X-Api-Key': key,
        },
        body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_stats","arguments":{"x":${nested(5000)}}}}`,
      });
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect((await res.json<Json>()).code).toBe('invalid_request');
    }
  });

  it.each(INTERNAL)('refuses a source at %s when it is created or moved', async (url) => {
    const created = await send(app, 'POST', '/api/v1/admin/sources', source(`Internal ${url}`, { url }));
    expect(created.status).toBe(400);
    expect(created.body.errors.map((e: Json) => e.path)).toEqual(['url']);
    const ok = await send(app, 'POST', '/api/v1/admin/sources', source(`Public for ${url}`));
    expect(ok.status).toBe(201);
    const moved = await send(app, 'PATCH', `/api/v1/admin/sources/${ok.body.id}`, JSON.stringify({ url }));
    expect(moved.status).toBe(400);
    expect(moved.body.errors.map((e: Json) => e.path)).toEqual(['url']);
  });

  it('accepts public http and https feeds on any port', async () => {
    for (const [i, url] of ['http://feeds.example.org/rss', 'https://feeds.example.org:8443/rss'].entries()) {
      expect((await send(app, 'POST', '/api/v1/admin/sources', source(`Public ${i}`, { url }))).status).toBe(
        201,
      );
    }
  });

  it('WEBHOOK_ALLOW_INSECURE lets a loopback feed be added, for development and tests', async () => {
    const res = await send(
      insecure,
      'POST',
      '/api/v1/admin/sources',
      source('Loopback feed', { url: 'http://127.0.0.1:8089/rss' }),
    );
    expect(res.status).toBe(201);
  });
});
