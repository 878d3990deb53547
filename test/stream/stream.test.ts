import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import type { Config } from '../../src/config';
import { apiKeys } from '../../src/db/schema';
import { LIVE_JS } from '../../src/embed/live';
import { SignalSchema } from '../../src/signals/serialize';
import { readStreamCursor, streamCursor } from '../../src/stream/changes';
import { admin, createKey, json, withTestApp } from '../support/harness';
import { openSse, readSse, type SseEvent, type SseReader } from '../support/sse';

// Made-up words unique to each item, so linking never joins two test signals into one event
// (a joined event would rescore them and send updates the test does not expect).
const RUN = Math.random().toString(36).slice(2, 7);
let serial = 0;
const word = (n: number, salt: string) => `${salt}${(n * 7919 + salt.charCodeAt(0)).toString(36)}${RUN}`;

/** An ingest item unlike every other one, with `over` applied. */
function item(over: Record<string, unknown> = {}) {
  serial += 1;
  const words = ['kv', 'zu', 'qo', 'wy'].map((salt) => word(serial, salt)).join(' ');
  return {
    threat_layer: 'cyber',
    significance_score: 5,
    signal_valence: 'crisis',
    title: `${words} ${serial} zx${serial}q`,
    content_display: `Report ${serial} about ${words} number ${serial}.`,
    country_codes: ['FR'],
    // Places and days apart (linking joins reports within days and 100 km of each other).
    lat: -60 + ((serial * 7.3) % 120),
    lng: -170 + ((serial * 13.7) % 340),
    published_at: new Date(Date.now() - serial * 5 * 86_400_000).toISOString(),
    source_url: `https://stream-${serial}.example.com/item/${serial}`,
    source: { name: `Stream Wire ${serial}` },
    ...over,
  };
}

const suite = withTestApp({
  key: 'pro',
  config: {
    STREAM_HEARTBEAT_MS: 50,
    STREAM_KEY_CHECK_MS: 50,
    STREAM_MAX_LIFETIME_MS: 60_000,
    SERVER_MAX_CONNECTIONS_PER_IP: 0,
  },
});

async function ingest(items: unknown[]) {
  const res = await suite.fetch('/api/v1/admin/signals', admin(json(items)));
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ accepted: items.length });
}

const open = (query = '', key = suite.key, headers: Record<string, string> = {}) =>
  openSse(`${suite.url}/api/v1/stream${query}`, { 'X-Api-Key': key, ...headers });

/** The signal an event carries, checked against the public schema. */
const signalOf = (event: SseEvent) => SignalSchema.parse(JSON.parse(event.data));
const urls = (events: SseEvent[]) => events.map((event) => signalOf(event).source_url);

async function opened(query = '', key = suite.key, headers: Record<string, string> = {}): Promise<SseReader> {
  const reader = await open(query, key, headers);
  expect(reader.response.status).toBe(200);
  expect(reader.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return reader;
}

describe('GET /api/v1/stream', () => {
  it('delivers an ingest to an open stream, each event id a resumable sync cursor', async () => {
    const reader = await opened();
    const items = [item(), item()];
    await ingest(items);
    const events = await reader.waitFor(2);
    reader.close();
    expect(events.map((e) => e.event)).toEqual(['signal', 'signal']);
    expect(urls(events).sort()).toEqual(items.map((i) => i.source_url).sort());
    for (const event of events) expect(readStreamCursor(event.id!).id).toBe(signalOf(event).id);
    expect(reader.retries[0]).toBeGreaterThan(0);
  });

  it('resumes with Last-Event-ID: exactly the N missed signals, then live ones, no repeat', async () => {
    const first = await opened();
    await ingest([item()]);
    const [seen] = await first.waitFor(1);
    first.close();
    const missed = [item(), item(), item()];
    await ingest(missed);
    const resumed = await opened('', suite.key, { 'Last-Event-ID': seen!.id! });
    // One ingest shares one updated_at, so its signals come in id order, not the batch's.
    const batch = missed.map((i) => i.source_url).sort();
    const caughtUp = await resumed.waitFor(3);
    expect(urls(caughtUp).sort()).toEqual(batch);
    const live = item();
    await ingest([live]);
    const all = await resumed.waitFor(4);
    await new Promise((resolve) => setTimeout(resolve, 100));
    resumed.close();
    expect(resumed.events).toHaveLength(4);
    expect(urls(all.slice(3))).toEqual([live.source_url]);
    // ?cursor= resumes the same way.
    const again = await opened(`?cursor=${seen!.id}`);
    const replay = urls(await again.waitFor(4));
    again.close();
    expect([...replay.slice(0, 3).sort(), replay[3]]).toEqual([...batch, live.source_url]);
  });

  it('filters live and resumed changes alike', async () => {
    const query = '?layers=cyber,health&min_score=6&country=de&bbox=47,5,55,16';
    const probe = await opened();
    await ingest([item({ threat_layer: 'political' })]);
    const [marker] = await probe.waitFor(1);
    probe.close();
    const live = await opened(query);
    let place = 0;
    const inside = () => ({ country_codes: ['DE'], lat: 48 + place, lng: 6 + 1.5 * place++ });
    const items = [
      item({ ...inside(), significance_score: 7 }),
      item({ ...inside(), significance_score: 5.9 }),
      item({ ...inside(), significance_score: 8, threat_layer: 'military' }),
      item({ ...inside(), significance_score: 9, country_codes: ['FR'] }),
      item({ ...inside(), significance_score: 9, lat: 40 }),
      item({ ...inside(), significance_score: 6.5, threat_layer: 'health' }),
    ];
    await ingest(items);
    const expected = [items[0]!, items[5]!].map((i) => i.source_url).sort();
    expect(urls(await live.waitFor(2)).sort()).toEqual(expected);
    await new Promise((resolve) => setTimeout(resolve, 100));
    live.close();
    expect(live.events).toHaveLength(2);
    // The resumed read (through Postgres) selects what the live match (in memory) selected.
    const resumed = await opened(`${query}&cursor=${marker!.id}`);
    expect(urls(await resumed.waitFor(2)).sort()).toEqual(expected);
    const later = item({ ...inside(), significance_score: 9.5 });
    await ingest([later]);
    const all = await resumed.waitFor(3);
    resumed.close();
    expect(urls(all.slice(2))).toEqual([later.source_url]);
    expect(all[2]!.event).toBe('signal');
  });

  it('with distinct=event sends the event’s lead', async () => {
    const reader = await opened('?distinct=event&layers=disaster');
    const title = 'Magnitude 6.1 earthquake strikes near Izmir coast';
    const base = {
      threat_layer: 'disaster',
      title,
      content_display: `${title}, buildings damaged.`,
      country_codes: ['TR'],
      lat: 38.42,
      lng: 27.14,
      published_at: new Date(Date.now() - 3_600_000).toISOString(),
    };
    const weak = item({ ...base, significance_score: 6 });
    await ingest([weak]);
    const [first] = await reader.waitFor(1);
    expect(first!.event).toBe('signal');
    expect(signalOf(first!).source_url).toBe(weak.source_url);
    const strong = item({ ...base, significance_score: 8 });
    await ingest([strong]);
    const events = await reader.waitFor(2);
    reader.close();
    const joined = signalOf(events[1]!);
    // Precondition: linking joined both reports into one event.
    expect(joined.event_id).toBe(signalOf(first!).event_id);
    expect(events[1]!.event).toBe('update');
    expect(joined.source_url).toBe(strong.source_url);
    expect(joined.corroboration).toBe(2);
  });

  it('answers a bad filter or cursor with a 400 before any stream opens', async () => {
    const free = (await createKey(suite.db, 'free')).key;
    for (const query of [
      '?min_score=11',
      '?layers=nope',
      '?bbox=1,2,3',
      '?cursor=%21%21',
      '?distinct=source',
    ]) {
      const res = await suite.fetch(`/api/v1/stream${query}`, { headers: { 'X-Api-Key': free } });
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await res.json()).toMatchObject({ code: 'invalid_request' });
    }
    const notOurs = Buffer.from(JSON.stringify(['x', '2026-01-01T00:00:00+00:00', 'y'])).toString(
      'base64url',
    );
    const bad = await suite.fetch('/api/v1/stream', {
      headers: { 'X-Api-Key': free, 'Last-Event-ID': notOurs },
    });
    expect(bad.status).toBe(400);
    // None of them took the free key's one stream.
    const reader = await opened('', free);
    reader.close();
  });

  it('answers 401 without a key and 410 for a cursor older than the resume window', async () => {
    expect((await suite.fetch('/api/v1/stream')).status).toBe(401);
    const old = streamCursor({
      updatedAt: '2026-01-01T00:00:00+00:00',
      id: '00000000-0000-0000-0000-000000000000',
    });
    const res = await suite.fetch(`/api/v1/stream?cursor=${old}`, { headers: { 'X-Api-Key': suite.key } });
    expect(res.status).toBe(410);
    const problem = await res.json<{ code: string; detail: string }>();
    expect(problem.code).toBe('cursor_expired');
    expect(problem.detail).toMatch(/updated_since/);
  });

  it('caps concurrent streams per key (free 1) and frees the slot when one closes', async () => {
    const free = (await createKey(suite.db, 'free')).key;
    const first = await opened('', free);
    const second = await suite.fetch('/api/v1/stream', { headers: { 'X-Api-Key': free } });
    expect(second.status).toBe(429);
    expect(await second.json()).toMatchObject({ code: 'stream_limit_reached' });
    first.close();
    let reopened: Response | undefined;
    for (let attempt = 0; attempt < 100; attempt += 1) {
      reopened = await fetch(`${suite.url}/api/v1/stream`, { headers: { 'X-Api-Key': free } });
      if (reopened.status === 200) break;
      await reopened.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(reopened!.status).toBe(200);
    await reopened!.body?.cancel();
  });

  it('ends a revoked key’s streams with a resumable cursor', async () => {
    const key = await createKey(suite.db, 'pro');
    const reader = await opened('', key.key);
    await suite.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, key.id));
    await reader.ended;
    const end = reader.events.at(-1)!;
    expect(end.event).toBe('end');
    expect(JSON.parse(end.data)).toMatchObject({ reason: 'key_revoked', cursor: end.id });
  });

  it('sends heartbeat comments', async () => {
    const reader = await opened();
    while (reader.comments.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    reader.close();
    expect(reader.comments[0]).toBe('heartbeat');
  });

  /** The app itself, on the suite's database and hub, with other stream settings; its body unread. */
  const unread = (config: Partial<Config>, query = '') =>
    createApp().request(
      `/api/v1/stream${query}`,
      { headers: { 'X-Api-Key': suite.key } },
      { deps: { ...suite.deps, config: { ...suite.deps.config, ...config } } },
    );

  it('cuts off a reader whose buffer fills, with a cursor that resumes without a gap', async () => {
    const res = await unread({ STREAM_BUFFER_BYTES: 1024 });
    expect(res.status).toBe(200);
    const items = Array.from({ length: 8 }, () => item({ content_display: `${'long text '.repeat(60)}` }));
    await ingest(items);
    // Nobody reads: the stream ends itself once about 1 KiB is queued.
    const reader = readSse(res);
    await reader.ended;
    const end = reader.events.at(-1)!;
    expect(JSON.parse(end.data)).toMatchObject({ reason: 'slow_reader', cursor: end.id });
    const got = reader.events.slice(0, -1);
    expect(got.length).toBeGreaterThan(0);
    expect(got.length).toBeLessThan(items.length);
    const resumed = await opened('', suite.key, { 'Last-Event-ID': end.id! });
    const rest = await resumed.waitFor(items.length - got.length);
    await new Promise((resolve) => setTimeout(resolve, 100));
    resumed.close();
    expect([...urls(got), ...urls(rest)].sort()).toEqual(items.map((i) => i.source_url).sort());
    expect(resumed.events).toHaveLength(items.length - got.length);
  });

  it('ends after its lifetime with a cursor that resumes', async () => {
    const reader = readSse(await unread({ STREAM_MAX_LIFETIME_MS: 200 }));
    await reader.ended;
    const end = reader.events.at(-1)!;
    expect(end.event).toBe('end');
    expect(JSON.parse(end.data)).toMatchObject({ reason: 'lifetime', cursor: end.id });
    const missed = item();
    await ingest([missed]);
    const resumed = await opened('', suite.key, { 'Last-Event-ID': end.id! });
    const [next] = await resumed.waitFor(1);
    resumed.close();
    expect(signalOf(next!).source_url).toBe(missed.source_url);
  });
});

describe('GET /embed/stream (the widget, without a key)', () => {
  const suite = withTestApp({ config: { SERVER_MAX_CONNECTIONS_PER_IP: 0 } });

  it('delivers the widget selection live and caps streams per address', async () => {
    const readers: SseReader[] = [];
    for (let i = 0; i < 3; i += 1) {
      const reader = await openSse(`${suite.url}/embed/stream?layers=health&hours=24`);
      expect(reader.response.status).toBe(200);
      readers.push(reader);
    }
    const fourth = await suite.fetch('/embed/stream');
    expect(fourth.status).toBe(429);
    expect(await fourth.json()).toMatchObject({ code: 'stream_limit_reached' });
    const health = item({ threat_layer: 'health' });
    await suite.fetch('/api/v1/admin/signals', admin(json([item(), health])));
    const [event] = await readers[0]!.waitFor(1);
    for (const reader of readers) reader.close();
    expect(signalOf(event!).source_url).toBe(health.source_url);
  });

  it('ships the live script with the widget, allowed by its hash', async () => {
    const page = await suite.fetch('/embed');
    const html = await page.text();
    expect(html).toContain(LIVE_JS);
    const policy = page.headers.get('content-security-policy')!;
    const digest = createHash('sha256').update(LIVE_JS).digest('base64');
    expect(policy).toContain(`'sha256-${digest}'`);
  });
});
