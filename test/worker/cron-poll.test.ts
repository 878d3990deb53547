/**
 * The cron Worker as deployed (wrangler's bundle in workerd): its scheduled handler polls the
 * due sources from a feed host on loopback, ingests into the CI Postgres (Neon driver through
 * the bridge) and delivers the new signals to a webhook in the same run.
 */
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client';
import { postgresDatabase } from '../../src/db/node';
import { signals, sources } from '../../src/db/schema';
import { createWebhook } from '../../src/webhooks/service';
import { createKey, closeAfterAll } from '../support/harness';
import { testDatabaseUrl, testRedisUrl } from '../support/services';
import { liveQuakes, startFeedServer, type FeedServer } from '../sources/feed-server';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { startWorkerServices, type WorkerServices } from './services';
import { startWorkerd, type WorkerdInstance } from './workerd';

describe.skipIf(!testDatabaseUrl() || !testRedisUrl())('the cron Worker polls sources in workerd', () => {
  let services: WorkerServices;
  let database: DatabaseHandle;
  let feeds: FeedServer;
  let receiver: Receiver;
  let cron: WorkerdInstance;

  const closing = closeAfterAll();
  beforeAll(async () => {
    services = closing(await startWorkerServices());
    database = closing(await postgresDatabase(services.bindings.DATABASE_URL!, { max: 2 }));
    feeds = closing(
      await startFeedServer({
        '/quakes': liveQuakes(),
        '/down': { status: 500 },
      }),
    );
    receiver = closing(await startReceiver());
    cron = closing(
      await startWorkerd(
        {
          ...services.bindings,
          // Lets the poll and the delivery reach loopback (the same guard as webhooks).
          WEBHOOK_ALLOW_INSECURE: 'true',
          SOURCE_CONTACT_URL: 'https://ops.example.org/contact',
          LOG_LEVEL: 'warn',
        },
        { env: 'cron' },
      ),
    );
  }, 180_000);

  const row = async (name: string) =>
    (await database.db.select().from(sources).where(eq(sources.name, name)))[0]!;

  it('polls the due sources, records each outcome and delivers the new signals in one run', async () => {
    const key = await createKey(database.db);
    await createWebhook(database.db, key.id, { url: receiver.url, layers: ['disaster'] }, undefined);
    await database.db.insert(sources).values([
      { name: 'quakes', connector: 'usgs', url: `${feeds.url}/quakes`, tier: 'core', intervalMinutes: 5 },
      { name: 'down', connector: 'usgs', url: `${feeds.url}/down`, tier: 'core', intervalMinutes: 5 },
    ]);

    await cron.scheduled();

    expect(feeds.requests.map((r) => r.path).sort()).toEqual(['/down', '/quakes']);
    const request = feeds.requests.find((r) => r.path === '/quakes')!;
    expect(request.headers['user-agent']).toBe('SignalIntel-Sources/1 (+https://ops.example.org/contact)');
    expect(await row('quakes')).toMatchObject({
      etag: '"quakes-1"',
      lastError: null,
      consecutiveFailures: 0,
      lastPollItems: 6,
      lastSuccessAt: expect.any(Date),
    });
    expect(await row('down')).toMatchObject({
      lastError: 'http_500',
      consecutiveFailures: 1,
      lastSuccessAt: null,
    });

    const stored = await database.db.select({ id: signals.id }).from(signals);
    // The three quakes published or revised in the poll window (72 hours).
    expect(stored).toHaveLength(3);
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.body.signals.map((s) => s.id).sort()).toEqual(
      stored.map((s) => s.id).sort(),
    );

    // The next run finds nothing due: no fetch, no delivery.
    await cron.scheduled();
    expect(feeds.requests).toHaveLength(2);
    expect(receiver.received).toHaveLength(1);
  }, 60_000);
});
