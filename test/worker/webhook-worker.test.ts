import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateEncryptionKey } from '../../src/webhooks/crypto';
import { FIXTURE } from '../support/fixture';
import { ADMIN_TOKEN, closeAfterAll } from '../support/harness';
import { testDatabaseUrl, testRedisUrl } from '../support/services';
import { startReceiver, WEBHOOK_FIELDS, type Receiver } from '../webhooks/receiver';
import { startWorkerServices, type WorkerServices } from './services';
import { issueKeyThrough, startWorkerd, type WorkerdInstance } from './workerd';

const SECRET = 'workerd-e2e-secret-0123456789';

type ApiSignal = Record<(typeof WEBHOOK_FIELDS)[number], unknown> & { id: string; source_url: string };

// Both Workers as deployed, on one database and one store: a webhook is registered and signals
// are ingested through the API Worker; the webhook Worker's cron delivers them.
describe.skipIf(!testDatabaseUrl() || !testRedisUrl())(
  'webhook delivery across the two Workers in workerd',
  () => {
    let services: WorkerServices;
    let api: WorkerdInstance;
    let cron: WorkerdInstance;
    let receiver: Receiver;
    let key: string;
    let serial = 0;

    const closing = closeAfterAll();
    beforeAll(async () => {
      services = closing(await startWorkerServices());
      const bindings = {
        ...services.bindings,
        WEBHOOK_ENCRYPTION_KEY: generateEncryptionKey(),
        // Lets the webhook target the loopback receiver over http (WEBHOOK_ALLOW_INSECURE).
        WEBHOOK_ALLOW_INSECURE: 'true',
        LOG_LEVEL: 'warn',
      };
      api = closing(await startWorkerd({ ...bindings, ADMIN_TOKEN }));
      cron = closing(await startWorkerd(bindings, { env: 'cron' }));
      receiver = closing(await startReceiver());
      key = await issueKeyThrough(api, 'webhooks-workerd@example.org');
    }, 180_000);

    const post = (path: string, body: unknown, bearer: string) =>
      api.fetch(path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${bearer}` },
        body: JSON.stringify(body),
      });
    const get = async <T>(path: string): Promise<T> => {
      const res = await api.fetch(path, { headers: { 'X-Api-Key': key } });
      expect(res.status, path).toBe(200);
      return await res.json();
    };
    /** A fixture signal under a source URL of its own, so every ingest is new. */
    const fresh = (name: keyof typeof FIXTURE, overrides: Record<string, unknown> = {}) => ({
      ...FIXTURE[name],
      source_url: `https://wire.example.com/workerd-webhooks/${++serial}`,
      ...overrides,
    });
    /** Ingests through the API Worker's admin API; answers the source URLs in the given order. */
    const ingest = async (...items: { source_url: string }[]) => {
      const res = await post('/api/v1/admin/signals', items, ADMIN_TOKEN);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ accepted: items.length, rejected: 0 });
      return items.map((item) => item.source_url);
    };
    /** The signals as the read API shows them, by source URL. */
    const signalsByUrl = async () => {
      const { data } = await get<{ data: ApiSignal[] }>('/api/v1/signals?limit=100');
      return new Map(data.map((s) => [s.source_url, s]));
    };
    const webhookFields = (signal: ApiSignal) =>
      Object.fromEntries(WEBHOOK_FIELDS.map((field) => [field, signal[field]]));
    /** The dispatcher reads only rows older than its settling margin (1 s). */
    const settle = () => new Promise((resolve) => setTimeout(resolve, 1_100));
    const headerOf = (delivery: Receiver['received'][number], name: string) => String(delivery.headers[name]);

    it('delivers exactly the matching signals ingested after registration, signed, from the cron handler', async () => {
      const [backlog] = await ingest(fresh('lyonHospital'));

      const created = await post(
        '/api/v1/webhooks',
        { url: receiver.url, name: 'workerd e2e', secret: SECRET, layers: ['cyber'], min_score: 7 },
        key,
      );
      expect(created.status).toBe(201);
      const webhook = await created.json<Record<string, unknown> & { id: string }>();
      expect(webhook).toMatchObject({
        url: receiver.url,
        layers: ['cyber'],
        min_score: 7,
        active: true,
        has_secret: true,
      });
      expect(JSON.stringify(webhook)).not.toContain(SECRET);

      // One matching signal per ingest, so their ingest order (the delivery order) is known.
      const [first] = await ingest(
        fresh('lyonHospital'),
        fresh('kyivStrike'), // military: another layer
        fresh('lvivGrid', { significance_score: 5 }), // cyber, below min_score
      );
      const [second] = await ingest(fresh('lvivGrid'));
      await settle();

      await cron.scheduled();

      expect(receiver.received).toHaveLength(1);
      const delivery = receiver.received[0]!;
      expect(delivery.path).toBe('/hook');
      expect(headerOf(delivery, 'content-type')).toBe('application/json');
      expect(headerOf(delivery, 'user-agent')).toBe('SignalIntel-Webhooks/1');
      const expectedSignature = `sha256=${createHmac('sha256', SECRET).update(delivery.raw).digest('hex')}`;
      const signature = headerOf(delivery, 'x-service-signature-256');
      expect(signature.length).toBe(expectedSignature.length);
      expect(timingSafeEqual(Buffer.from(signature), Buffer.from(expectedSignature))).toBe(true);
      const deliveryId = headerOf(delivery, 'x-service-delivery');
      expect(deliveryId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(headerOf(delivery, 'webhook-id')).toBe(deliveryId);
      const verifier = new Webhook(Buffer.from(SECRET).toString('base64'));
      const standardHeaders = {
        'webhook-id': deliveryId,
        'webhook-timestamp': headerOf(delivery, 'webhook-timestamp'),
        'webhook-signature': headerOf(delivery, 'webhook-signature'),
      };
      expect(verifier.verify(delivery.raw, standardHeaders)).toEqual(delivery.body);
      expect(() => verifier.verify(delivery.raw.replace(first!, `${first}x`), standardHeaders)).toThrow();

      const byUrl = await signalsByUrl();
      expect(byUrl.has(backlog!)).toBe(true);
      expect(Object.keys(delivery.body)).toEqual(['webhook_id', 'fired_at', 'signal_count', 'signals']);
      expect(delivery.body).toEqual({
        webhook_id: webhook.id,
        fired_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        signal_count: 2,
        signals: [webhookFields(byUrl.get(first!)!), webhookFields(byUrl.get(second!)!)],
      });

      // The API reads back what the cron Worker recorded.
      const { data: hooks } = await get<{ data: Record<string, unknown>[] }>('/api/v1/webhooks');
      expect(hooks).toEqual([
        expect.objectContaining({
          id: webhook.id,
          last_status: 200,
          consecutive_failures: 0,
          last_delivery_at: expect.any(String),
          disabled_reason: null,
        }),
      ]);
      const { data: attempts } = await get<{ data: Record<string, unknown>[] }>(
        `/api/v1/webhooks/${webhook.id}/deliveries`,
      );
      expect(attempts).toEqual([
        expect.objectContaining({
          delivery_id: deliveryId,
          signal_count: 2,
          status: 200,
          ok: true,
          test: false,
        }),
      ]);

      // The cursor moved past what was delivered: nothing new, nothing sent; one new, only it.
      await cron.scheduled();
      expect(receiver.received).toHaveLength(1);
      const [third] = await ingest(fresh('lyonHospital', { significance_score: 9.5 }));
      await settle();
      await cron.scheduled();
      expect(receiver.received).toHaveLength(2);
      const next = receiver.received[1]!;
      expect(next.body).toMatchObject({ webhook_id: webhook.id, signal_count: 1 });
      expect(next.body.signals.map((s) => s.id)).toEqual([(await signalsByUrl()).get(third!)!.id]);
      expect(headerOf(next, 'x-service-delivery')).not.toBe(deliveryId);
    }, 60_000);
  },
);
