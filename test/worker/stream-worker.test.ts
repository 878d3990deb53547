import { beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl, testRedisUrl } from '../support/services';
import { openSse } from '../support/sse';
import { withApiWorker } from './services';
import { adminPost, issueKeyThrough } from './workerd';

let serial = 0;
/** An ingest item unlike the others (place, day and words), so linking keeps it alone. */
function item() {
  serial += 1;
  return {
    threat_layer: 'cyber',
    significance_score: 6,
    signal_valence: 'crisis',
    title: `Workerd stream report ${serial} qx${serial}zv wk${serial * 31}j`,
    content_display: `Report ${serial} of the workerd stream test.`,
    country_codes: ['FR'],
    lat: -50 + serial * 9,
    lng: -150 + serial * 23,
    published_at: new Date(Date.now() - serial * 6 * 86_400_000).toISOString(),
    source_url: `https://workerd-stream.example.com/${serial}`,
    source: { name: `Workerd Wire ${serial}` },
  };
}

// The API Worker in workerd with its Durable Object hub, on the CI Postgres (Neon driver) and
// Redis (Upstash REST): a real admin ingest reaches a real open stream through the hub.
describe.skipIf(!testDatabaseUrl() || !testRedisUrl())('live stream on Workers (Durable Object hub)', () => {
  const worker = withApiWorker({ LOG_LEVEL: 'error', STREAM_KEY_CHECK_MS: '200' });
  let key: string;
  beforeAll(async () => {
    key = await issueKeyThrough(worker, 'stream-workerd@example.org');
  }, 60_000);

  const open = (headers: Record<string, string> = {}, as = key) =>
    openSse(`${worker.url}/api/v1/stream`, { 'X-Api-Key': as, ...headers });
  const ingest = async (items: unknown[]) => {
    const res = await adminPost(worker, '/api/v1/admin/signals', items);
    expect(res.status).toBe(200);
  };
  const urls = (events: { data: string }[]) =>
    events.map((event) => (JSON.parse(event.data) as { source_url: string }).source_url);

  it('an admin ingest reaches an open stream; a reconnect with Last-Event-ID gets exactly what it missed', async () => {
    const reader = await open();
    expect(reader.response.status).toBe(200);
    expect(reader.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const first = item();
    await ingest([first]);
    const [event] = await reader.waitFor(1, 30_000);
    reader.close();
    expect(event!.event).toBe('signal');
    expect(urls([event!])).toEqual([first.source_url]);

    const missed = [item(), item()];
    await ingest(missed);
    const resumed = await open({ 'Last-Event-ID': event!.id! });
    const caughtUp = await resumed.waitFor(2, 30_000);
    expect(urls(caughtUp).sort()).toEqual(missed.map((i) => i.source_url).sort());
    const live = item();
    await ingest([live]);
    const all = await resumed.waitFor(3, 30_000);
    resumed.close();
    expect(urls(all.slice(2))).toEqual([live.source_url]);
  }, 90_000);

  it('caps a free key at one stream across isolates (the hub counts them)', async () => {
    const free = await issueKeyThrough(worker, 'stream-free@example.org', 'free');
    const first = await open({}, free);
    expect(first.response.status).toBe(200);
    const second = await worker.fetch('/api/v1/stream', { headers: { 'X-Api-Key': free } });
    expect(second.status).toBe(429);
    expect(await second.json()).toMatchObject({ code: 'stream_limit_reached' });
    first.close();
  }, 60_000);

  it('answers a bad filter with a 400 and ends a revoked key’s stream (the hub’s alarm)', async () => {
    const bad = await worker.fetch('/api/v1/stream?min_score=11', { headers: { 'X-Api-Key': key } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'invalid_request' });
    const created = await worker.fetch('/api/v1/keys', {
      method: 'POST',
      headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'to revoke' }),
    });
    expect(created.status).toBe(201);
    const second = await created.json<{ id: string; key: string }>();
    const reader = await open({}, second.key);
    expect(reader.response.status).toBe(200);
    const revoked = await worker.fetch(`/api/v1/keys/${second.id}`, {
      method: 'DELETE',
      headers: { 'X-Api-Key': key },
    });
    expect(revoked.status).toBeLessThan(300);
    await reader.ended;
    const end = reader.events.at(-1)!;
    expect(end.event).toBe('end');
    expect(JSON.parse(end.data)).toMatchObject({ reason: 'key_revoked', cursor: end.id });
  }, 60_000);
});
