import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';
import { webhooks } from '../../src/db/schema';
import type { OutboundFetch } from '../../src/net/outbound';
import { sendTestDelivery } from '../../src/webhooks/dispatch';
import { createKey, startTestApp, type TestApp, keyCall, withTestApp } from '../support/harness';

type Problem = { code: string; errors?: { path: string; message: string }[] };

describe('webhook ports', () => {
  let extra: TestApp;
  let key: string;
  /** Every URL an outbound request was attempted for; answered 200 without leaving the process. */
  const attempted: string[] = [];
  const recording: OutboundFetch = async (input) => {
    attempted.push(String(input));
    return new Response('ok');
  };

  const app = withTestApp({ deps: { fetch: recording } });
  beforeAll(async () => {
    extra = await startTestApp(app.db, {
      config: { WEBHOOK_ALLOWED_PORTS: [8443] },
      deps: { fetch: recording },
    });
  });
  beforeEach(async () => {
    key = (await createKey(app.db)).key;
    attempted.length = 0;
  });
  afterAll(async () => {
    await extra?.close();
  });

  it.each([
    'https://hooks.example.com:8443/in',
    'https://hooks.example.com:80/in',
    'https://hooks.example.com:22/',
  ])('refuses %s at create with 400 naming url', async (url) => {
    const res = await app.fetch('/api/v1/webhooks', keyCall(key, 'POST', { url }));
    expect(res.status).toBe(400);
    const problem = await res.json<Problem>();
    expect(problem.code).toBe('invalid_request');
    expect(problem.errors).toEqual([{ path: 'url', message: expect.stringMatching(/port 443/) }]);
    expect(await app.db.select().from(webhooks).where(eq(webhooks.url, url))).toHaveLength(0);
  });

  it('accepts 443, written or implied', async () => {
    for (const url of ['https://hooks.example.com/a', 'https://hooks.example.com:443/b']) {
      expect((await app.fetch('/api/v1/webhooks', keyCall(key, 'POST', { url }))).status).toBe(201);
    }
  });

  it('refuses a move to another port at update, and changes nothing', async () => {
    const created = await app.fetch(
      '/api/v1/webhooks',
      keyCall(key, 'POST', { url: 'https://hooks.example.com/in' }),
    );
    const { id } = await created.json<{ id: string }>();
    const res = await app.fetch(
      `/api/v1/webhooks/${id}`,
      keyCall(key, 'POST', { url: 'https://hooks.example.com:6379/' }),
    );
    expect(res.status).toBe(400);
    expect((await res.json<Problem>()).errors?.map((e) => e.path)).toEqual(['url']);
    const [row] = await app.db.select().from(webhooks).where(eq(webhooks.id, id));
    expect(row!.url).toBe('https://hooks.example.com/in');
  });

  it('accepts a port the operator lists in WEBHOOK_ALLOWED_PORTS, and only that one', async () => {
    const ok = await extra.fetch(
      '/api/v1/webhooks',
      keyCall(key, 'POST', { url: 'https://hooks.example.com:8443/in' }),
    );
    expect(ok.status).toBe(201);
    const other = await extra.fetch(
      '/api/v1/webhooks',
      keyCall(key, 'POST', { url: 'https://hooks.example.com:9443/in' }),
    );
    expect(other.status).toBe(400);
  });

  it('checks the port again at send time, after the operator narrowed the list', async () => {
    const created = await extra.fetch(
      '/api/v1/webhooks',
      keyCall(key, 'POST', { url: 'https://hooks.example.com:8443/in' }),
    );
    const { id } = await created.json<{ id: string }>();
    const [row] = await app.db.select().from(webhooks).where(eq(webhooks.id, id));
    expect((await sendTestDelivery(extra.deps, row!)).ok).toBe(true);
    expect(attempted).toEqual(['https://hooks.example.com:8443/in']);
    // The default deps allow 443 only.
    expect(await sendTestDelivery(app.deps, row!)).toMatchObject({ ok: false, error: 'blocked_address' });
    expect(attempted).toHaveLength(1);
  });

  it('reads WEBHOOK_ALLOWED_PORTS as a list and refuses what is not one', () => {
    expect(loadConfig({ WEBHOOK_ALLOWED_PORTS: '8443, 9443' }).WEBHOOK_ALLOWED_PORTS).toEqual([8443, 9443]);
    expect(loadConfig({}).WEBHOOK_ALLOWED_PORTS).toEqual([]);
    for (const bad of ['https', '8443;22', '70000', '0']) {
      expect(() => loadConfig({ WEBHOOK_ALLOWED_PORTS: bad })).toThrow(ConfigError);
    }
  });
});
