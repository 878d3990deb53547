/**
 * One live-data run through the real pipeline: a poll of a feed on loopback → the signals are
 * readable with filters → a webhook receives them in the same run → they are in the feed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sources } from '../../src/db/schema';
import { runCycle, UnknownSourceError } from '../../src/sources/cycle';
import { generateEncryptionKey } from '../../src/webhooks/crypto';
import { backends, withTestApp } from '../support/harness';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { liveQuakes, startFeedServer, type FeedServer } from './feed-server';

interface ApiSignal {
  id: string;
  threat_layer: string;
  significance_score: number;
  country_codes: string[];
  source_url: string;
}

describe.each(backends)('a live-data cycle on $name', (backend) => {
  let feeds: FeedServer;
  let receiver: Receiver;
  const app = withTestApp({
    open: backend.open,
    key: 'pro',
    timeout: 60_000,
    config: { WEBHOOK_ALLOW_INSECURE: true, WEBHOOK_ENCRYPTION_KEY: generateEncryptionKey() },
  });
  beforeAll(async () => {
    feeds = await startFeedServer({
      '/quakes': liveQuakes(),
      '/down': { status: 500 },
    });
    receiver = await startReceiver();
    await app.db.insert(sources).values([
      {
        name: 'feed-quakes',
        connector: 'usgs',
        url: `${feeds.url}/quakes`,
        tier: 'core',
        intervalMinutes: 5,
      },
      { name: 'feed-down', connector: 'usgs', url: `${feeds.url}/down`, tier: 'core', intervalMinutes: 5 },
    ]);
  });
  afterAll(async () => {
    await receiver?.close();
    await feeds?.close();
  });

  const get = async <T>(path: string): Promise<T> => {
    const res = await app.fetch(path, { headers: { 'X-Api-Key': app.key } });
    expect(res.status, path).toBe(200);
    return await res.json();
  };

  it('polls, serves with filters, delivers and feeds the new signals in one run', async () => {
    const created = await app.fetch('/api/v1/webhooks', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Api-Key': app.key },
      body: JSON.stringify({ url: receiver.url, layers: ['disaster'], min_score: 5 }),
    });
    expect(created.status).toBe(201);

    const summary = await runCycle(app.deps);

    expect(summary.polls.map((p) => [p.source, p.status])).toEqual([
      ['feed-down', 'failed'],
      ['feed-quakes', 'ok'],
    ]);
    expect(summary.polls[0]).toMatchObject({ error: 'http_500', failures: 1 });
    const poll = summary.polls[1]!;
    if (poll.status !== 'ok') throw new Error('unreachable');
    // Of the 6 quakes of the feed, the three published or revised in the last 72 hours are taken
    // (the poll window).
    expect(poll).toMatchObject({ items: 6, accepted: 3, updated: 0, rejected: 0 });
    expect(summary).toMatchObject({ accepted: 3, failed: 1, deferred: 0 });

    // Readable with filters.
    const { data: all } = await get<{ data: ApiSignal[] }>('/api/v1/signals?layers=disaster&limit=100');
    expect(all.map((s) => s.id).sort()).toEqual([...poll.ids].sort());
    const strong = all.filter((s) => s.significance_score >= 5);
    expect(strong.length).toBeGreaterThan(0);
    expect(strong.length).toBeLessThan(all.length);
    const { data: filtered } = await get<{ data: ApiSignal[] }>(
      '/api/v1/signals?layers=disaster&min_score=5',
    );
    expect(filtered.map((s) => s.id).sort()).toEqual(strong.map((s) => s.id).sort());
    const { data: afghanistan } = await get<{ data: ApiSignal[] }>('/api/v1/signals?country=AF');
    expect(afghanistan).toHaveLength(1);
    expect(afghanistan.every((s) => s.country_codes.includes('AF'))).toBe(true);
    expect(afghanistan.map((s) => s.source_url)).toContain(
      'https://earthquake.usgs.gov/earthquakes/eventpage/us7000tst1',
    );

    // Delivered in the same run: exactly the signals matching the webhook.
    expect(summary.webhooks).toMatchObject({ deliveries: 1, succeeded: 1, signals: strong.length });
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.body.signals.map((s) => s.id).sort()).toEqual(
      strong.map((s) => s.id).sort(),
    );

    // In the feed.
    const feed = await get<{ items: { id: string; external_url: string }[] }>(
      '/api/v1/feed?format=json&layers=disaster',
    );
    expect(feed.items.map((item) => item.id.replace('urn:uuid:', '')).sort()).toEqual(
      all.map((s) => s.id).sort(),
    );

    // Nothing is due again yet: a second run polls nothing and delivers nothing.
    const again = await runCycle(app.deps);
    expect(again.polls).toEqual([]);
    expect(again.webhooks.deliveries).toBe(0);

    // Forced, the feed answers 304 to its ETag: nothing new, nothing sent.
    const forced = await runCycle(app.deps, { source: 'feed-quakes' });
    expect(forced.polls).toEqual([{ source: 'feed-quakes', connector: 'usgs', status: 'not_modified' }]);
    expect(receiver.received).toHaveLength(1);
    await expect(runCycle(app.deps, { source: 'no such feed' })).rejects.toBeInstanceOf(UnknownSourceError);
  }, 60_000);
});
