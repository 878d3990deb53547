import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTERING } from '../../src/analytics/clusters';
import type { DatabaseHandle } from '../../src/db/client';
import { ingestSignals } from '../../src/ingest/pipeline';
import { backends, startTestApp, type TestApp } from '../support/harness';

const NOW = new Date('2026-11-22T12:00:00Z');
const MINUTE = 60_000;
const COUNTRIES = ['UA', 'PL', 'RO', 'MD', 'BY', 'SK', 'HU', 'LT', 'LV', 'EE', 'FI', 'SE', 'NO', 'DK'];
/** More signals than the clustering looks at, in two stories of one layer, all in the last day. */
const STORY_SIZE = 600;

const story = (kind: 'kharkiv' | 'odesa', i: number, minutesAgo: number) => ({
  threat_layer: 'military',
  significance_score: Math.round((1 + ((i * 7) % 90) / 10) * 10) / 10,
  signal_valence: 'crisis',
  title:
    kind === 'kharkiv'
      ? `Shelling near Kharkiv as Armed Forces of Ukraine hold line ${i}`
      : `Drones strike Odesa port as Black Sea Fleet moves ${i}`,
  content_display:
    kind === 'kharkiv'
      ? 'The Armed Forces of Ukraine said Russian shelling hit Kharkiv overnight.'
      : 'The Black Sea Fleet launched drones at the port of Odesa overnight.',
  country_codes: [COUNTRIES[i % COUNTRIES.length]!],
  published_at: new Date(NOW.getTime() - minutesAgo * MINUTE).toISOString(),
  source_url: `https://wire.example/clusters/${kind}/${i}`,
  source: { name: 'Cluster Wire', tier: 'core' },
});

describe.each(backends)('clusters at scale on $name', (backend) => {
  let database: DatabaseHandle;
  const apps: TestApp[] = [];
  /** A server of its own (own store, so nothing cached) whose clock reads `now`. */
  const serverAt = async (now: Date) => {
    const app = await startTestApp(database.db, { deps: { now: () => now } });
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    database = await backend.open();
    const items = [];
    for (let i = 0; i < STORY_SIZE; i++) {
      items.push(story('kharkiv', i, 1 + (i % 600)), story('odesa', i, 2 + (i % 600)));
    }
    for (let i = 0; i < items.length; i += 400) {
      expect((await ingestSignals(database.db, items.slice(i, i + 400))).rejected).toBe(0);
    }
    // These copies are what the linker joins into a few events, and clusters count events: each
    // is made an event of its own, so the bounds below are tested on 1,200 events.
    await database.db.execute(sql`UPDATE signals SET event_id = id, event_lead = true`);
  }, 240_000);
  afterAll(async () => {
    for (const app of apps) await app.close();
    await database?.close();
  });

  it('clusters only the strongest 1,000 signals and bounds every list in the answer', async () => {
    const app = await serverAt(NOW);
    const res = await app.fetch('/api/v1/clusters?days=1');
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(Buffer.byteLength(text)).toBeLessThan(200 * 1024);
    const body = JSON.parse(text);
    expect(body.signals_considered).toBe(CLUSTERING.maxSignals);
    expect(
      body.data.map((c: { top_entities: { name: string }[] }) => c.top_entities[0]!.name).sort(),
    ).toEqual(['Armed Forces of Ukraine', 'Black Sea']);
    for (const cluster of body.data) {
      expect(cluster.signal_count).toBeGreaterThan(CLUSTERING.maxSignalIds);
      expect(cluster.signal_ids).toHaveLength(CLUSTERING.maxSignalIds);
      expect(new Set(cluster.signal_ids).size).toBe(CLUSTERING.maxSignalIds);
      expect(cluster.countries).toHaveLength(CLUSTERING.maxCountries);
    }
    // Every clustered signal is counted once, and those are the strongest of the window.
    expect(body.data.reduce((n: number, c: { signal_count: number }) => n + c.signal_count, 0)).toBe(
      CLUSTERING.maxSignals,
    );
    const floor = Math.min(...body.data.map((c: { mean_score: number }) => c.mean_score));
    expect(floor).toBeGreaterThan(5); // the scores of all 1,200 signals average 5.45
  });

  it('answers 304 to its ETag while the data is unchanged, whenever it is asked', async () => {
    const first = await (await serverAt(NOW)).fetch('/api/v1/clusters?days=3&min_signals=3');
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe(`public, max-age=${300}`);
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
    const firstBody = await first.json<{ window: unknown; data: unknown }>();

    // Seven minutes on, computed afresh by another server: a new window, the same data.
    const later = await serverAt(new Date(NOW.getTime() + 7 * MINUTE));
    const fresh = await later.fetch('/api/v1/clusters?days=3&min_signals=3');
    expect(fresh.headers.get('etag')).toBe(tag);
    const freshBody = await fresh.json<{ window: unknown; data: unknown }>();
    expect(freshBody.window).not.toEqual(firstBody.window);
    expect(freshBody.data).toEqual(firstBody.data);
    const notModified = await later.fetch('/api/v1/clusters?days=3&min_signals=3', {
      headers: { 'If-None-Match': tag },
    });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(tag);
    expect(await notModified.text()).toBe('');
    // Another selection is another answer, with a tag of its own.
    const other = await later.fetch('/api/v1/clusters?days=3&threat_layer=cyber', {
      headers: { 'If-None-Match': tag },
    });
    expect(other.status).toBe(200);

    // A new strongest signal changes the data: the old tag gets the new answer.
    const added = story('kharkiv', STORY_SIZE + 1, 1);
    added.significance_score = 10;
    await ingestSignals(database.db, [added]);
    const changed = await (
      await serverAt(new Date(NOW.getTime() + 7 * MINUTE))
    ).fetch('/api/v1/clusters?days=3&min_signals=3', { headers: { 'If-None-Match': tag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(tag);
  });

  it('serves every min_signals from one cached computation', async () => {
    const app = await serverAt(NOW);
    const miss = await app.fetch('/api/v1/clusters?threat_layer=military&min_signals=2');
    expect(miss.headers.get('x-cache')).toBe('MISS');
    const hit = await app.fetch('/api/v1/clusters?threat_layer=military&min_signals=500');
    expect(hit.headers.get('x-cache')).toBe('HIT');
    const body = await hit.json<{ total: number; data: { signal_count: number }[] }>();
    expect(body.data.every((c: { signal_count: number }) => c.signal_count >= 500)).toBe(true);
    expect(body.total).toBe(body.data.length);
  });
});
