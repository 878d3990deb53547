/**
 * The poller against a feed host on loopback: conditional GET with the stored validators, and
 * each way a poll can fail (error status, timeout, too large, malformed, redirect, blocked
 * address) recorded as a kind on that source only, with a backoff that grows.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import type { DatabaseHandle } from '../../src/db/client';
import { sources } from '../../src/db/schema';
import type { Deps } from '../../src/deps';
import { ingestSourceItems } from '../../src/ingest/upstream';
import { nodeDeps } from '../../src/node-runtime';
import { CATALOGUE } from '../../src/sources/catalogue';
import { dueSources, ensureCatalogue, MAX_BACKOFF_MS, pollBackoffMs } from '../../src/sources/poll-state';
import { pollSource, type IngestSourceItems } from '../../src/sources/poller';
import type { SourceRow } from '../../src/sources/rows';
import { memoryStore } from '../../src/store/memory';
import { memoryLogger, testPglite } from '../support/harness';
import { startFeedServer, type FeedServer } from './feed-server';
import { fixture } from './support';

const MINUTE = 60_000;
const CONTACT = 'https://ops.example.org/feeds-contact';

describe('polling one source', () => {
  let database: DatabaseHandle;
  let feeds: FeedServer;
  let deps: Deps;
  let clock: Date;
  /** Items each poll handed to the ingest, by source name. */
  let ingested: { source: string; items: number }[];
  const recordingIngest: IngestSourceItems = (db, source, items, options) => {
    ingested.push({ source: source.name, items: items.length });
    return ingestSourceItems(db, source, items, options);
  };

  const usgs = fixture('usgs.geojson');
  const gdacs = fixture('gdacs.xml');

  beforeAll(async () => {
    database = await testPglite();
    feeds = await startFeedServer({
      '/usgs': { document: usgs, type: 'application/geo+json', etag: '"usgs-v1"' },
      '/gdacs': {
        document: gdacs,
        type: 'application/rss+xml',
        lastModified: 'Wed, 11 Oct 2023 20:00:00 GMT',
      },
      '/error': { status: 500, body: 'internal details that must not be stored' },
      '/busy': { status: 503, headers: { 'Retry-After': '7200' } },
      '/slow': { slowMs: 5_000 },
      '/huge': {
        document: `{"type":"FeatureCollection","features":[${'0,'.repeat(600_000)}0]}`,
        type: 'application/json',
      },
      // One feature over the 5,000-item cap: refused whole, never ingested in part.
      '/over-cap': {
        document: JSON.stringify({
          type: 'FeatureCollection',
          features: Array.from({ length: 5001 }, (_, i) => ({
            type: 'Feature',
            id: `cap${i}`,
            properties: {},
          })),
        }),
        type: 'application/geo+json',
      },
      '/broken-json': { document: '{"type":"FeatureCollection","features":[', type: 'application/json' },
      '/broken-xml': { document: '<rss><channel><item><title>x</title>', type: 'application/rss+xml' },
      '/moved': { redirect: '/usgs' },
    });
  });
  afterAll(async () => {
    await feeds?.close();
    await database?.close();
  });
  beforeEach(async () => {
    // Signals and coverage go with their sources.
    await database.db.execute(sql`truncate sources cascade`);
    ingested = [];
    feeds.requests.length = 0;
    clock = new Date('2023-10-11T20:30:00Z');
    const config = {
      ...loadConfig({ LOG_LEVEL: 'silent', WEBHOOK_ALLOW_INSECURE: 'true', SOURCE_CONTACT_URL: CONTACT }),
      SOURCE_MAX_BYTES: 1024 * 1024,
    };
    deps = nodeDeps(config, database.db, memoryStore(), { log: memoryLogger(), now: () => clock });
  });

  async function addSource(name: string, connector: string, path: string, extra: Partial<SourceRow> = {}) {
    const [row] = await database.db
      .insert(sources)
      .values({ name, connector, url: `${feeds.url}${path}`, tier: 'core', intervalMinutes: 5, ...extra })
      .returning();
    return row!;
  }
  const row = async (name: string) =>
    (await database.db.select().from(sources).where(eq(sources.name, name)))[0]!;
  const poll = async (name: string, options: { timeoutMs?: number } = {}) =>
    pollSource(deps, await row(name), options, recordingIngest);

  it('sends a conditional GET with the stored ETag: a 304 ingests nothing and keeps the validators', async () => {
    await addSource('quakes', 'usgs', '/usgs');

    const first = await poll('quakes');
    expect(first).toMatchObject({ source: 'quakes', connector: 'usgs', status: 'ok', items: 6 });
    expect(ingested).toEqual([{ source: 'quakes', items: 6 }]);
    const request = feeds.requests[0]!;
    expect(request.headers['user-agent']).toBe(`SignalIntel-Sources/1 (+${CONTACT})`);
    expect(request.headers.accept).toContain('json');
    expect(request.headers['if-none-match']).toBeUndefined();
    expect(await row('quakes')).toMatchObject({
      etag: '"usgs-v1"',
      lastModified: null,
      lastPolledAt: clock,
      lastSuccessAt: clock,
      lastError: null,
      consecutiveFailures: 0,
      lastPollItems: 6,
      nextPollAt: new Date(clock.getTime() + 5 * MINUTE),
    });

    // Not due yet: nothing to poll, and a poll that is not forced does not fetch.
    expect(await dueSources(database.db, clock)).toEqual([]);
    expect(await poll('quakes')).toMatchObject({ status: 'busy' });
    expect(feeds.requests).toHaveLength(1);

    clock = new Date(clock.getTime() + 5 * MINUTE);
    expect((await dueSources(database.db, clock)).map((s) => s.name)).toEqual(['quakes']);
    expect(await poll('quakes')).toMatchObject({ status: 'not_modified' });
    expect(feeds.requests[1]!.headers['if-none-match']).toBe('"usgs-v1"');
    expect(ingested).toHaveLength(1);
    expect(await row('quakes')).toMatchObject({
      etag: '"usgs-v1"',
      lastSuccessAt: clock,
      lastPollItems: 0,
      consecutiveFailures: 0,
      nextPollAt: new Date(clock.getTime() + 5 * MINUTE),
    });
  });

  it('sends If-Modified-Since when the feed gave only Last-Modified', async () => {
    await addSource('disasters', 'gdacs', '/gdacs', { intervalMinutes: 15 });
    expect(await poll('disasters')).toMatchObject({ status: 'ok', items: expect.any(Number) });
    expect(await row('disasters')).toMatchObject({
      etag: null,
      lastModified: 'Wed, 11 Oct 2023 20:00:00 GMT',
    });
    clock = new Date(clock.getTime() + 15 * MINUTE);
    expect(await poll('disasters')).toMatchObject({ status: 'not_modified' });
    expect(feeds.requests[1]!.headers['if-modified-since']).toBe('Wed, 11 Oct 2023 20:00:00 GMT');
    expect(ingested).toHaveLength(1);
  });

  it.each([
    ['an error status', 'usgs', '/error', 'http_500'],
    ['an answer past the timeout', 'usgs', '/slow', 'timeout'],
    ['a body over SOURCE_MAX_BYTES', 'usgs', '/huge', 'too_large'],
    ['a document over the item cap', 'usgs', '/over-cap', 'too_many_items'],
    ['malformed JSON', 'usgs', '/broken-json', 'malformed'],
    ['malformed XML', 'gdacs', '/broken-xml', 'malformed'],
    ['a redirect (not followed)', 'usgs', '/moved', 'redirect_301'],
  ])('records %s on that source only, ingesting nothing', async (_case, connector, path, kind) => {
    await addSource('healthy', 'usgs', '/usgs');
    await addSource('failing', connector, path);
    expect(await poll('healthy')).toMatchObject({ status: 'ok' });
    const healthy = await row('healthy');

    const outcome = await poll('failing', { timeoutMs: 300 });

    expect(outcome).toEqual({
      source: 'failing',
      connector,
      status: 'failed',
      error: kind,
      failures: 1,
      next_poll_at: new Date(clock.getTime() + 10 * MINUTE).toISOString(),
    });
    expect(ingested.map((call) => call.source)).toEqual(['healthy']);
    expect(await row('failing')).toMatchObject({
      lastError: kind,
      consecutiveFailures: 1,
      lastPolledAt: clock,
      lastSuccessAt: null,
      etag: null,
      lastModified: null,
      nextPollAt: new Date(clock.getTime() + 10 * MINUTE),
    });
    expect(await row('healthy')).toEqual(healthy);
    // Only the two configured paths were asked for: a redirect's target is never fetched.
    expect(feeds.requests.map((r) => r.path)).toEqual(['/usgs', path]);
  });

  it('backs off exponentially up to 6 hours, and a success resets the count', async () => {
    await addSource('flaky', 'usgs', '/flaky');
    feeds.route('/flaky', { status: 502 });
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) {
      const outcome = await poll('flaky');
      expect(outcome).toMatchObject({ status: 'failed', error: 'http_502', failures: i + 1 });
      const next = (await row('flaky')).nextPollAt!;
      waits.push((next.getTime() - clock.getTime()) / MINUTE);
      clock = next;
      expect((await dueSources(database.db, clock)).map((s) => s.name)).toEqual(['flaky']);
    }
    expect(waits).toEqual([10, 20, 40, 80, 160, 320, 360, 360]);
    expect(pollBackoffMs(5, 30)).toBe(MAX_BACKOFF_MS);
    // A daily feed never polls more often than daily, failing or not.
    expect(pollBackoffMs(1440, 1)).toBe(1440 * MINUTE);

    feeds.route('/flaky', { document: usgs, type: 'application/geo+json' });
    expect(await poll('flaky')).toMatchObject({ status: 'ok' });
    expect(await row('flaky')).toMatchObject({ lastError: null, consecutiveFailures: 0 });
  });

  it('waits at least as long as Retry-After asks', async () => {
    await addSource('overloaded', 'usgs', '/busy');
    expect(await poll('overloaded')).toMatchObject({ status: 'failed', error: 'http_503' });
    expect((await row('overloaded')).nextPollAt).toEqual(new Date(clock.getTime() + 2 * 60 * MINUTE));
  });

  it('goes through the address guard: loopback is refused unless WEBHOOK_ALLOW_INSECURE', async () => {
    await addSource('internal', 'usgs', '/usgs');
    deps = { ...deps, fetch: nodeDeps(loadConfig({}), database.db, memoryStore()).fetch };
    expect(await poll('internal')).toMatchObject({ status: 'failed', error: 'blocked_address' });
    expect(feeds.requests).toHaveLength(0);
    expect(ingested).toEqual([]);
  });

  it('records a source its connector cannot use as misconfigured, without fetching', async () => {
    await addSource('reliefweb', 'reliefweb', '/usgs', { options: { appname: '' } });
    await addSource('unknown', 'no-such-connector', '/usgs');
    expect(await poll('reliefweb')).toMatchObject({ status: 'failed', error: 'misconfigured' });
    expect(await poll('unknown')).toMatchObject({ status: 'failed', error: 'misconfigured' });
    expect(feeds.requests).toHaveLength(0);
  });

  it('adds the catalogue to a database without sources, and only then', async () => {
    expect(await ensureCatalogue(database.db)).toBe(CATALOGUE.length);
    const due = await dueSources(database.db, clock);
    // ReliefWeb waits for its appname; every other catalogue source is due at once.
    expect(due.map((s) => s.name).sort()).toEqual(
      CATALOGUE.filter((entry) => entry.enabled !== false)
        .map((entry) => entry.name)
        .sort(),
    );
    await database.db.delete(sources).where(eq(sources.name, CATALOGUE[0]!.name));
    expect(await ensureCatalogue(database.db)).toBe(0);
    expect(await row(CATALOGUE[0]!.name)).toBeUndefined();
  });
});
