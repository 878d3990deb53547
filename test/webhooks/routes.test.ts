import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhooks } from '../../src/db/schema';
import { ingestSignals } from '../../src/ingest/pipeline';
import { generateEncryptionKey } from '../../src/webhooks/crypto';
import { FIXTURE } from '../support/fixture';
import {
  admin,
  backends,
  createKey,
  startTestApp,
  withTestApp,
  keyCall,
  ageIngests,
} from '../support/harness';
import { startReceiver, type Receiver } from './receiver';

type Problem = { code: string; errors?: { path: string }[] };
const SECRET = 'route-secret-0123456789';

describe('webhook registration', () => {
  let receiver: Receiver;
  const app = withTestApp({
    config: { WEBHOOK_ALLOW_INSECURE: false, WEBHOOK_ENCRYPTION_KEY: generateEncryptionKey() },
  });
  beforeAll(async () => {
    receiver = await startReceiver([500]);
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('creates, lists, updates and deletes a webhook, never returning its secret', async () => {
    const { key } = await createKey(app.db);
    const created = await app.fetch(
      '/api/v1/webhooks',
      keyCall(key, 'POST', {
        url: 'https://hooks.example.com/in',
        name: 'SOC',
        secret: SECRET,
        layers: ['cyber', 'cyber', 'military'],
        min_score: 7,
        country_codes: ['ua', 'PL'],
        valence: 'crisis',
      }),
    );
    expect(created.status).toBe(201);
    const record = await created.json<Record<string, unknown> & { id: string }>();
    expect(record).toMatchObject({
      url: 'https://hooks.example.com/in',
      name: 'SOC',
      layers: ['cyber', 'military'],
      min_score: 7,
      country_codes: ['UA', 'PL'],
      valence: 'crisis',
      active: true,
      has_secret: true,
      consecutive_failures: 0,
      last_delivery_at: null,
      disabled_reason: null,
    });
    expect(JSON.stringify(record)).not.toContain(SECRET);
    const [stored] = await app.db
      .select()
      .from(webhooks)
      .where(eq(webhooks.id, String(record.id)));
    expect(stored!.secretCiphertext).toMatch(/^v2\./);
    expect(stored!.secretCiphertext).not.toContain(SECRET);

    const list = await (
      await app.fetch('/api/v1/webhooks', keyCall(key, 'GET'))
    ).json<{
      data: unknown[];
    }>();
    expect(list.data).toEqual([record]);

    const paused = await app.fetch(
      `/api/v1/webhooks/${record.id}`,
      keyCall(key, 'POST', { active: false, min_score: null, name: 'SOC 2' }),
    );
    expect(paused.status).toBe(200);
    expect(await paused.json()).toMatchObject({
      active: false,
      min_score: null,
      name: 'SOC 2',
      layers: ['cyber', 'military'],
    });

    const deleted = await app.fetch(`/api/v1/webhooks/${record.id}`, keyCall(key, 'DELETE'));
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    const again = await app.fetch(`/api/v1/webhooks/${record.id}`, keyCall(key, 'DELETE'));
    expect(again.status).toBe(404);
  });

  it('answers 404 for a webhook of another key, whatever the operation', async () => {
    const owner = await createKey(app.db);
    const other = await createKey(app.db);
    const res = await app.fetch(
      '/api/v1/webhooks',
      keyCall(owner.key, 'POST', { url: 'https://hooks.example.com/a' }),
    );
    const { id } = await res.json<{ id: string }>();
    for (const [method, path, body] of [
      ['POST', `/api/v1/webhooks/${id}`, { active: false }],
      ['DELETE', `/api/v1/webhooks/${id}`, undefined],
      ['GET', `/api/v1/webhooks/${id}/deliveries`, undefined],
      ['POST', `/api/v1/webhooks/${id}/test`, undefined],
    ] as const) {
      const attempt = await app.fetch(path, keyCall(other.key, method, body));
      expect(attempt.status, `${method} ${path}`).toBe(404);
      expect((await attempt.json<Problem>()).code).toBe('not_found');
    }
    const list = await (
      await app.fetch('/api/v1/webhooks', keyCall(other.key, 'GET'))
    ).json<{
      data: unknown[];
    }>();
    expect(list.data).toEqual([]);
  });

  it.each([
    [{}, 'url'],
    [{ url: 'http://hooks.example.com/in' }, 'url'],
    [{ url: 'https://127.0.0.1/in' }, 'url'],
    [{ url: 'https://2130706433/in' }, 'url'],
    [{ url: 'https://[::ffff:169.254.169.254]/' }, 'url'],
    [{ url: 'https://localhost./in' }, 'url'],
    [{ url: 'https://metadata.google.internal/' }, 'url'],
    [{ url: 'https://hooks.example.com/in', secret: 'short' }, 'secret'],
    [{ url: 'https://hooks.example.com/in', secret: 'x'.repeat(257) }, 'secret'],
    [{ url: 'https://hooks.example.com/in', name: 'x'.repeat(101) }, 'name'],
    [{ url: `https://hooks.example.com/${'x'.repeat(2048)}` }, 'url'],
    [{ url: 'https://hooks.example.com/in', country_codes: [] }, 'country_codes'],
    [{ url: 'https://hooks.example.com/in', layers: ['weather'] }, 'layers.0'],
    [{ url: 'https://hooks.example.com/in', layers: [] }, 'layers'],
    [{ url: 'https://hooks.example.com/in', min_score: 10.5 }, 'min_score'],
    [{ url: 'https://hooks.example.com/in', min_score: -1 }, 'min_score'],
    [{ url: 'https://hooks.example.com/in', min_score: '7' }, 'min_score'],
    [{ url: 'https://hooks.example.com/in', country_codes: ['XX'] }, 'country_codes.0'],
    [{ url: 'https://hooks.example.com/in', country_codes: ['USA'] }, 'country_codes.0'],
    [{ url: 'https://hooks.example.com/in', valence: 'panic' }, 'valence'],
    [{ url: 'https://hooks.example.com/in', name: '' }, 'name'],
    [{ url: 'https://hooks.example.com/in', active: false }, 'body'],
    [{ url: 'https://hooks.example.com/in', key_id: 'x' }, 'body'],
  ])('refuses the registration %j naming %s', async (body, field) => {
    const { key } = await createKey(app.db);
    const res = await app.fetch('/api/v1/webhooks', keyCall(key, 'POST', body));
    expect(res.status).toBe(400);
    const problem = await res.json<Problem>();
    expect(problem.code).toBe('invalid_request');
    expect(problem.errors!.map((e) => e.path)).toContain(field);
  });

  it.each([
    [{}, 'body'],
    [{ secret: 'a-new-secret-0123456789' }, 'body'],
    [{ url: 'https://10.0.0.1/x' }, 'url'],
    [{ active: 'no' }, 'active'],
    [{ layers: ['cyber', 'nope'] }, 'layers.1'],
  ])('refuses the update %j naming %s', async (body, field) => {
    const { key } = await createKey(app.db);
    const res = await app.fetch(
      '/api/v1/webhooks',
      keyCall(key, 'POST', { url: 'https://hooks.example.com/u' }),
    );
    const { id } = await res.json<{ id: string }>();
    const update = await app.fetch(`/api/v1/webhooks/${id}`, keyCall(key, 'POST', body));
    expect(update.status).toBe(400);
    const problem = await update.json<Problem>();
    expect(problem.code).toBe('invalid_request');
    expect(problem.errors!.map((e) => e.path)).toContain(field);
  });

  it('needs a key, and a JSON body', async () => {
    const anonymous = await app.fetch('/api/v1/webhooks');
    expect(anonymous.status).toBe(401);
    const { key } = await createKey(app.db);
    const form = await app.fetch('/api/v1/webhooks', {
      method: 'POST',
      headers: { 'X-Api-Key': key, 'Content-Type': 'text/plain' },
      body: 'url=https://x',
    });
    expect(form.status).toBe(415);
    const broken = await app.fetch('/api/v1/webhooks', {
      method: 'POST',
      headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' },
      body: '{"url":',
    });
    expect((await broken.json<Problem>()).code).toBe('invalid_json');
    const badId = await app.fetch('/api/v1/webhooks/not-a-uuid', keyCall(key, 'DELETE'));
    expect(badId.status).toBe(400);
  });

  it('sends a signed test delivery that is logged but never counted as a failure', async () => {
    const insecure = await startTestApp(app.db, {
      config: {
        WEBHOOK_ALLOW_INSECURE: true,
        WEBHOOK_ENCRYPTION_KEY: app.deps.config.WEBHOOK_ENCRYPTION_KEY,
      },
    });
    try {
      const { key } = await createKey(app.db);
      const res = await insecure.fetch(
        '/api/v1/webhooks',
        keyCall(key, 'POST', { url: receiver.url, secret: SECRET }),
      );
      const { id } = await res.json<{ id: string }>();
      for (const expected of [500, 200]) {
        const test = await insecure.fetch(`/api/v1/webhooks/${id}/test`, keyCall(key, 'POST'));
        expect(test.status).toBe(200);
        expect(await test.json()).toMatchObject({ status: expected, ok: expected === 200 });
      }
      const last = receiver.received.at(-1)!;
      expect(last.headers['x-service-signature-256']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(last.body).toMatchObject({ webhook_id: id, signal_count: 1 });
      const log = await (
        await insecure.fetch(`/api/v1/webhooks/${id}/deliveries`, keyCall(key, 'GET'))
      ).json<{
        data: { status: number; test: boolean }[];
      }>();
      expect(log.data.map((d) => [d.status, d.test])).toEqual([
        [200, true],
        [500, true],
      ]);
      const list = await (
        await insecure.fetch('/api/v1/webhooks', keyCall(key, 'GET'))
      ).json<{
        data: { consecutive_failures: number; active: boolean }[];
      }>();
      expect(list.data[0]).toMatchObject({ consecutive_failures: 0, active: true });
    } finally {
      await insecure.close();
    }
  });

  it('refuses to store a secret when no encryption key is configured', async () => {
    const bare = await startTestApp(app.db, { config: { WEBHOOK_ENCRYPTION_KEY: undefined } });
    try {
      const { key } = await createKey(app.db);
      const signed = await bare.fetch(
        '/api/v1/webhooks',
        keyCall(key, 'POST', { url: 'https://hooks.example.com/s', secret: SECRET }),
      );
      expect(signed.status).toBe(503);
      expect((await signed.json<{ detail: string }>()).detail).toMatch(/WEBHOOK_ENCRYPTION_KEY/);
      const unsigned = await bare.fetch(
        '/api/v1/webhooks',
        keyCall(key, 'POST', { url: 'https://hooks.example.com/s' }),
      );
      expect(unsigned.status).toBe(201);
    } finally {
      await bare.close();
    }
  });

  it('runs a dispatcher pass for the operator only, and that pass delivers', async () => {
    const denied = await app.fetch('/api/v1/admin/webhooks/dispatch', { method: 'POST' });
    expect(denied.status).toBe(401);
    // A server that may reach the loopback receiver, and no other test's webhooks in the way.
    const local = await startTestApp(app.db, { config: { WEBHOOK_ALLOW_INSECURE: true } });
    const target = await startReceiver();
    try {
      await app.db.delete(webhooks);
      const { key } = await createKey(app.db);
      const created = await local.fetch('/api/v1/webhooks', keyCall(key, 'POST', { url: target.url }));
      expect(created.status).toBe(201);
      const item = {
        ...FIXTURE.kyivStrike,
        source_url: `https://wire.example.com/route-dispatch-${Date.now()}`,
      };
      expect(await ingestSignals(app.db, [item])).toMatchObject({ accepted: 1 });
      // The dispatcher leaves signals younger than its 1 s settling margin for the next pass.
      await ageIngests(app.db);
      const res = await local.fetch('/api/v1/admin/webhooks/dispatch', admin({ method: 'POST' }));
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        webhooks: 1,
        deliveries: 1,
        succeeded: 1,
        failed: 0,
        signals: 1,
      });
      expect(target.received).toHaveLength(1);
      expect(target.received[0]!.body.signal_count).toBe(1);
      const again = await local.fetch('/api/v1/admin/webhooks/dispatch', admin({ method: 'POST' }));
      expect(await again.json()).toMatchObject({ deliveries: 0 });
    } finally {
      await target.close();
      await local.close();
    }
  });
});

describe.each(backends)('the webhook limit on $name', (backend) => {
  const app = withTestApp({ open: backend.open });

  it('refuses the 6th webhook even when eight are created at once', async () => {
    const { key } = await createKey(app.db);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        app.fetch('/api/v1/webhooks', keyCall(key, 'POST', { url: `https://hooks.example.com/${i}` })),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 201, 201, 409, 409, 409]);
    const refused = results.find((r) => r.status === 409)!;
    expect((await refused.json<Problem>()).code).toBe('webhook_limit_reached');
    const list = await (
      await app.fetch('/api/v1/webhooks', keyCall(key, 'GET'))
    ).json<{
      data: unknown[];
    }>();
    expect(list.data).toHaveLength(5);
    const other = await createKey(app.db);
    const elsewhere = await app.fetch(
      '/api/v1/webhooks',
      keyCall(other.key, 'POST', { url: 'https://hooks.example.com/x' }),
    );
    expect(elsewhere.status).toBe(201);
  });
});
