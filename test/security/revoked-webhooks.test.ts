import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { apiKeys, webhooks } from '../../src/db/schema';
import { ingestSignals } from '../../src/ingest/pipeline';
import { dispatchWebhooks } from '../../src/webhooks/dispatch';
import { createWebhook } from '../../src/webhooks/service';
import { FIXTURE } from '../support/fixture';
import { createKey, memoryLogger, withTestApp, keyCall } from '../support/harness';
import { startReceiver } from '../webhooks/receiver';

type Problem = { code: string; detail: string };

describe("a revoked key's webhooks", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sequence = 0;
  const app = withTestApp({ config: { WEBHOOK_ALLOW_INSECURE: true } });
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  /** One dispatcher pass after a fresh signal has been ingested (and settled). */
  async function ingestAndDispatch() {
    sequence += 1;
    const item = {
      ...FIXTURE[Object.keys(FIXTURE)[0] as keyof typeof FIXTURE],
      source_url: `https://wire.example.com/revoked/${Date.now()}/${sequence}`,
    };
    expect((await ingestSignals(app.db, [item])).accepted).toBe(1);
    const deps = {
      db: app.db,
      config: loadConfig({ LOG_LEVEL: 'silent', WEBHOOK_ALLOW_INSECURE: 'true' }),
      now: () => new Date(Date.now() + 60_000),
      fetch: globalThis.fetch.bind(globalThis),
      log: memoryLogger(),
    };
    return dispatchWebhooks(deps, { settleMs: 0 });
  }

  /** A second key on the account of `key`, through the API. */
  async function secondKey(key: string): Promise<{ id: string; key: string }> {
    const res = await app.fetch('/api/v1/keys', keyCall(key, 'POST', { name: 'second' }));
    expect(res.status).toBe(201);
    return await res.json<{ id: string; key: string }>();
  }

  it('are deleted by the revocation, and nothing is delivered for them', async () => {
    const first = await createKey(app.db);
    const second = await secondKey(first.key);
    for (const i of [1, 2]) {
      const res = await app.fetch(
        '/api/v1/webhooks',
        keyCall(second.key, 'POST', { url: `${receiver.url}/revoked-${i}` }),
      );
      expect(res.status).toBe(201);
    }
    expect(await app.db.select().from(webhooks).where(eq(webhooks.keyId, second.id))).toHaveLength(2);

    expect((await app.fetch(`/api/v1/keys/${second.id}`, keyCall(first.key, 'DELETE'))).status).toBe(204);
    expect(await app.db.select().from(webhooks).where(eq(webhooks.keyId, second.id))).toHaveLength(0);

    receiver.received.length = 0;
    await ingestAndDispatch();
    expect(receiver.received.filter((r) => r.path.startsWith('/hook/revoked-'))).toHaveLength(0);
  });

  it('are never claimed by the dispatcher, even when the key was revoked behind its back', async () => {
    const owner = await createKey(app.db);
    const row = (await createWebhook(app.db, owner.id, { url: `${receiver.url}/behind` }, undefined))!;
    // The same pass delivers to an active key's webhook, so the pass itself works.
    const active = await createKey(app.db);
    const control = (await createWebhook(app.db, active.id, { url: `${receiver.url}/active` }, undefined))!;
    // Revoked in the database directly (by hand, or before revocation deleted webhooks).
    await app.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, owner.id));

    receiver.received.length = 0;
    const summary = await ingestAndDispatch();
    expect(receiver.received.filter((r) => r.path === '/hook/behind')).toHaveLength(0);
    const [after] = await app.db.select().from(webhooks).where(eq(webhooks.id, row.id));
    expect(after!.leaseUntil).toBeNull();
    expect(after!.lastDeliveryAt).toBeNull();
    expect(receiver.received.filter((r) => r.path === '/hook/active')).toHaveLength(1);
    expect(summary.deliveries).toBe(1);
    await app.db.delete(webhooks).where(inArray(webhooks.id, [row.id, control.id]));
  });

  it('caps the account at 5 webhooks per active key, counting ones a revocation left behind', async () => {
    const first = await createKey(app.db);
    const old = await secondKey(first.key);
    const leftovers = await Promise.all(
      [1, 2, 3, 4, 5].map(
        async (i) =>
          (await createWebhook(app.db, old.id, { url: `https://hooks.example.com/old-${i}` }, undefined))!,
      ),
    );
    // Revoked without the revocation route, as keys were before it deleted their webhooks.
    await app.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, old.id));

    const refused = await app.fetch(
      '/api/v1/webhooks',
      keyCall(first.key, 'POST', { url: 'https://hooks.example.com/new' }),
    );
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = await refused.json<Problem>();
    expect(problem.code).toBe('webhook_limit_reached');
    expect(problem.detail).toMatch(/5 per active key/);
    expect(await app.db.select().from(webhooks).where(eq(webhooks.keyId, first.id))).toHaveLength(0);

    // A second active key raises the account's cap to 10.
    await secondKey(first.key);
    const allowed = await app.fetch(
      '/api/v1/webhooks',
      keyCall(first.key, 'POST', { url: 'https://hooks.example.com/new' }),
    );
    expect(allowed.status).toBe(201);

    // The next revocation on the account sweeps the leftovers away.
    const third = await secondKey(first.key);
    expect((await app.fetch(`/api/v1/keys/${third.id}`, keyCall(first.key, 'DELETE'))).status).toBe(204);
    const ids = leftovers.map((w) => w.id);
    expect(await app.db.select().from(webhooks).where(inArray(webhooks.id, ids))).toHaveLength(0);
  });

  it('a create racing the revocation of its key is refused or swept, never left running', async () => {
    const first = await createKey(app.db);
    const second = await secondKey(first.key);
    const [created, revoked] = await Promise.all([
      app.fetch('/api/v1/webhooks', keyCall(second.key, 'POST', { url: 'https://hooks.example.com/race' })),
      app.fetch(`/api/v1/keys/${second.id}`, keyCall(first.key, 'DELETE')),
    ]);
    expect(revoked.status).toBe(204);
    expect([201, 401]).toContain(created.status);
    expect(await app.db.select().from(webhooks).where(eq(webhooks.keyId, second.id))).toHaveLength(0);
  });
});
