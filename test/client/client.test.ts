import { sql } from 'drizzle-orm';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignalClient, retryAfterSeconds, verifyWebhook, type Signal } from '@signal-intel/client';
import { queryRows } from '../../src/db/client';
import { ingestSignals } from '../../src/ingest/pipeline';
import { generateEncryptionKey } from '../../src/webhooks/crypto';
import { fixtureItems } from '../support/fixture';
import { ADMIN_TOKEN, createKey, withTestApp, seedFixtures, ageIngests } from '../support/harness';
import { startReceiver, type Receiver } from '../webhooks/receiver';

describe('the typed client against the running API', () => {
  let receiver: Receiver;
  const app = withTestApp({
    seed: seedFixtures,
    config: { WEBHOOK_ALLOW_INSECURE: true, WEBHOOK_ENCRYPTION_KEY: generateEncryptionKey() },
  });
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('signs up, walks every page by cursor, registers a webhook and verifies its delivery', async () => {
    const anonymous = createSignalClient({ baseUrl: app.url });
    const signup = await anonymous.POST('/api/v1/keys', {
      body: { email: 'client@example.org', name: 'sdk' },
    });
    expect(signup.response.status).toBe(201);
    const key = signup.data!.key;

    const api = createSignalClient({ baseUrl: app.url, apiKey: key });
    const walked: Signal[] = [];
    for await (const signal of api.signals({ limit: 3 })) walked.push(signal);
    const { data: onePage } = await api.GET('/api/v1/signals', { params: { query: { limit: 100 } } });
    const all = (onePage as { data: Signal[] }).data;
    expect(all).toHaveLength(10);
    expect(walked.map((s) => s.id)).toEqual(all.map((s) => s.id));

    const filtered: Signal[] = [];
    for await (const signal of api.signals({ layers: 'cyber', limit: 1 })) filtered.push(signal);
    expect(filtered.length).toBeGreaterThan(1);
    expect(filtered.every((s) => s.threat_layer === 'cyber')).toBe(true);

    const secret = 'client-test-secret-0123456789';
    const created = await api.POST('/api/v1/webhooks', {
      body: { url: receiver.url, secret, layers: ['disaster'] },
    });
    expect(created.response.status).toBe(201);
    await ingestSignals(app.db, [
      {
        ...fixtureItems()[0]!,
        threat_layer: 'disaster',
        source_url: 'https://wire.example.com/client-flood',
        published_at: new Date().toISOString(),
      },
    ]);
    // The dispatcher only reads signals older than its settling delay (1 s; see dispatch.ts).
    await ageIngests(app.db);
    const dispatched = await api.POST('/api/v1/admin/webhooks/dispatch', {
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(dispatched.response.status).toBe(200);
    expect(receiver.received).toHaveLength(1);
    const delivery = receiver.received[0]!;
    const headers = delivery.headers as Record<string, string>;
    expect(await verifyWebhook(delivery.raw, headers, secret)).toBe(true);
    expect(await verifyWebhook(delivery.raw.replace('disaster', 'cyber'), headers, secret)).toBe(false);
    expect(await verifyWebhook(delivery.raw, headers, 'another-secret-0123456789')).toBe(false);
    const later = (Number(headers['webhook-timestamp']) + 301) * 1000;
    expect(await verifyWebhook(delivery.raw, headers, secret, { now: later })).toBe(false);
  });

  it("reads one signal per event and walks an event's signals, following a merged id", async () => {
    const api = createSignalClient({ baseUrl: app.url, apiKey: (await createKey(app.db)).key });
    // Two fixture signals are told as one event; the other's old event is merged into it.
    const [kept, merged] = await queryRows<{ id: string; event_id: string }>(
      app.db,
      sql`SELECT id, event_id FROM signals WHERE threat_layer = 'cyber' ORDER BY significance_score DESC, id LIMIT 2`,
    );
    await app.db.execute(
      sql`UPDATE signals SET event_id = ${kept!.event_id}::uuid WHERE id = ${merged!.id}::uuid`,
    );
    await app.db.execute(
      sql`UPDATE events SET merged_into = ${kept!.event_id}::uuid WHERE id = ${merged!.event_id}::uuid`,
    );
    const distinct: Signal[] = [];
    for await (const signal of api.signals({ distinct: 'event', layers: 'cyber' })) distinct.push(signal);
    expect(distinct.map((s) => s.id)).toEqual([kept!.id]);
    const members: Signal[] = [];
    for await (const signal of api.eventSignals(merged!.event_id)) members.push(signal);
    expect(members.map((s) => s.id)).toEqual([kept!.id, merged!.id]);
  });

  it('throws the problem of an error answer while iterating', async () => {
    const api = createSignalClient({ baseUrl: app.url, apiKey: 'sig_not_a_real_key' });
    await expect(api.signals().next()).rejects.toMatchObject({
      status: 401,
      problem: { code: 'invalid_api_key' },
    });
  });
});

describe('retrying on 429 and 503', () => {
  /** A loopback server answering the listed statuses in turn, each 429/503 with a Retry-After. */
  async function scripted(replies: [number, string?][]) {
    let served = 0;
    const server = createServer((_req, res) => {
      const [status, retryAfter] = replies[Math.min(served, replies.length - 1)]!;
      served += 1;
      res.writeHead(status, {
        'Content-Type': status === 200 ? 'application/json' : 'application/problem+json',
        ...(retryAfter ? { 'Retry-After': retryAfter } : {}),
      });
      res.end(status === 200 ? '{"status":"ok"}' : `{"status":${status},"code":"rate_limited"}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      served: () => served,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  it('waits what Retry-After says, capped, then answers', async () => {
    const server = await scripted([[429, '2'], [503, '120'], [200]]);
    const waits: number[] = [];
    const api = createSignalClient({
      baseUrl: server.url,
      maxRetryAfterSeconds: 30,
      sleep: async (ms) => void waits.push(ms),
    });
    const { data, response } = await api.GET('/api/v1/health');
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ status: 'ok' });
    expect(waits).toEqual([2000, 30_000]);
    expect(server.served()).toBe(3);
    await server.close();
  });

  it('gives up after the configured retries and returns the last answer', async () => {
    const server = await scripted([[429, '1']]);
    const api = createSignalClient({ baseUrl: server.url, retries: 2, sleep: async () => {} });
    const { error, response } = await api.GET('/api/v1/health');
    expect(response.status).toBe(429);
    expect(error).toMatchObject({ code: 'rate_limited' });
    expect(server.served()).toBe(3);
    await server.close();
  });

  it('reads Retry-After as seconds or an HTTP date, and backs off without one', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(retryAfterSeconds('7', 0, now)).toBe(7);
    expect(retryAfterSeconds('Mon, 23 Nov 2026 10:00:05 GMT', 0, now)).toBe(5);
    expect(retryAfterSeconds(null, 3, now)).toBe(8);
  });
});
