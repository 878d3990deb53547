import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ingestSignals } from '../../src/ingest/pipeline';
import { rebuildAggregates } from '../../src/ingest/aggregates';
import { backends, withTestApp } from '../support/harness';

const NOW = new Date('2026-11-22T12:00:00Z');
const HOUR = 3_600_000;
const at = (hoursAgo: number) => new Date(NOW.getTime() - hoursAgo * HOUR).toISOString();

let serial = 0;
function item(fields: {
  layer: string;
  score: number;
  valence?: string;
  title: string;
  content?: string;
  country: string;
  hoursAgo: number;
  source?: 'wire' | 'blog';
  language?: string;
}) {
  serial += 1;
  return {
    threat_layer: fields.layer,
    significance_score: fields.score,
    signal_valence: fields.valence ?? 'crisis',
    title: fields.title,
    content_display: fields.content ?? fields.title,
    country_codes: [fields.country],
    language: fields.language ?? 'en',
    published_at: at(fields.hoursAgo),
    source_url: `https://example.org/analytics/${serial}`,
    source:
      fields.source === 'blog'
        ? { name: 'Field Blog', tier: 'community' }
        : { name: 'Analytics Wire', tier: 'core' },
  };
}

/**
 * A world whose every number is known by hand (NOW = 2026-11-22T12:00Z):
 * - UA military: 6 crisis signals in the last hour (8, 8, 7, 7, 6, 6), all naming Kharkiv and the
 *   Armed Forces of Ukraine, over a baseline of 28 routine 3.0 updates 7–142 hours ago;
 * - UA cyber: 3 crises (7, 6, 5) 1–2 hours ago naming Frostbite Group and Kharkiv;
 * - FR political: 1 update (2.0) 3 hours ago, in French, from the blog;
 * - UA health: 3 crises (9.0) 20 days ago; SD disaster 3 × 8.0 and SD health 3 × 6.0, 25 days ago (blog).
 */
function world() {
  const items = [];
  [8, 8, 7, 7, 6, 6].forEach((score, i) =>
    items.push(
      item({
        layer: 'military',
        score,
        title: `Shelling near Kharkiv as Armed Forces of Ukraine hold line ${i + 1}`,
        content: 'The Armed Forces of Ukraine said Russian shelling hit Kharkiv overnight.',
        country: 'UA',
        hoursAgo: 1 - i / 6, // 11:00, 11:10 … 11:50
      }),
    ),
  );
  for (let k = 0; k < 28; k++) {
    items.push(
      item({
        layer: 'military',
        score: 3,
        valence: 'update',
        title: 'Routine patrol report',
        country: 'UA',
        hoursAgo: 7 + 5 * k,
      }),
    );
  }
  [7, 6, 5].forEach((score, i) =>
    items.push(
      item({
        layer: 'cyber',
        score,
        title: `Frostbite Group hits Kharkiv power grid, wave ${i + 1}`,
        content: 'Frostbite Group claimed a cyberattack on the Kharkiv grid.',
        country: 'UA',
        hoursAgo: 1.75 - i / 4, // 10:15, 10:30, 10:45
      }),
    ),
  );
  items.push(
    item({
      layer: 'political',
      score: 2,
      valence: 'update',
      title: 'Débat budgétaire',
      country: 'FR',
      hoursAgo: 3,
      source: 'blog',
      language: 'fr',
    }),
  );
  for (let i = 0; i < 3; i++) {
    items.push(
      item({
        layer: 'health',
        score: 9,
        title: `Cholera ward overflow ${i}`,
        country: 'UA',
        hoursAgo: 480 + i,
      }),
    );
    items.push(
      item({
        layer: 'disaster',
        score: 8,
        title: `Flood ${i}`,
        country: 'SD',
        hoursAgo: 600 + i,
        source: 'blog',
      }),
    );
    items.push(
      item({
        layer: 'health',
        score: 6,
        title: `Measles ${i}`,
        country: 'SD',
        hoursAgo: 600 + i,
        source: 'blog',
      }),
    );
  }
  return items;
}

describe.each(backends)('analytics endpoints on $name', (backend) => {
  const app = withTestApp({
    open: backend.open,
    seed: async (db) => {
      const result = await ingestSignals(db, world());
      expect(result).toMatchObject({ accepted: 47, rejected: 0 });
      // The numbered copies below read as one story to the linker, and clusters and the brief
      // count events: each signal is made an event of its own so the hand-computed figures stay
      // about the formulas (test/events/ pins counting by event).
      await db.execute(sql`UPDATE signals SET event_id = id, event_lead = true, corroboration = 1`);
      // Trending and crises count events from the aggregates: recount them after the regrouping.
      await rebuildAggregates(db);
    },
    key: 'pro',
    deps: { now: () => NOW },
  });

  const get = async (path: string, withKey = true) => {
    const res = await app.fetch(path, { headers: withKey ? { 'X-Api-Key': app.key } : {} });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return { res, body: JSON.parse(text) };
  };

  it('snapshots: the composite of a bucket from its numbers', async () => {
    const { body } = await get('/api/v1/snapshots?region=Europe&layer=military&start=2026-11-22T09:30:00Z');
    expect(body.window).toEqual({ start: '2026-11-22T09:00:00.000Z', end: NOW.toISOString() });
    expect(body.data).toEqual([
      {
        bucket: '2026-11-22T11:00:00.000Z',
        region: 'Europe',
        threat_layer: 'military',
        composite_score: 7.9, // 0.5·7 + 0.3·8 + 2·6/6
        signal_count: 6,
        mean_score: 7,
        max_score: 8,
        crisis_count: 6,
        anomaly_count: expect.any(Number),
      },
    ]);
  });

  it('snapshots: newest first over the default 24 hours, with limit and has_more', async () => {
    const all = (await get('/api/v1/snapshots?limit=500')).body;
    expect(all.window).toEqual({ start: '2026-11-21T12:00:00.000Z', end: NOW.toISOString() });
    // 11:00 military, 10:00 cyber, 09:00 political (FR), and 4 routine UA buckets (05, 00, 19, 14 h).
    expect(
      all.data.map(
        (s: { bucket: string; threat_layer: string }) => `${s.bucket.slice(8, 13)} ${s.threat_layer}`,
      ),
    ).toEqual([
      '22T11 military',
      '22T10 cyber',
      '22T09 political',
      '22T05 military',
      '22T00 military',
      '21T19 military',
      '21T14 military',
    ]);
    expect(all.data[1].composite_score).toBe(7.1); // 0.5·6 + 0.3·7 + 2
    expect(all.data[3].composite_score).toBe(2.4); // 0.5·3 + 0.3·3 + 0
    const page = (await get('/api/v1/snapshots?limit=2')).body;
    expect(page.data).toHaveLength(2);
    expect(page.has_more).toBe(true);
  });

  it('sources: coverage and filters', async () => {
    const { body } = await get('/api/v1/sources');
    expect(body.data.map((s: { name: string }) => s.name)).toEqual(['Analytics Wire', 'Field Blog']);
    expect(body.data[0]).toMatchObject({
      tier: 'core',
      signal_count: 40,
      last_seen_at: '2026-11-22T11:50:00.000Z',
      coverage: {
        regions: [{ name: 'Europe', signal_count: 40 }],
        layers: [
          { name: 'military', signal_count: 34 },
          { name: 'cyber', signal_count: 3 },
          { name: 'health', signal_count: 3 },
        ],
      },
    });
    expect(body.data[1].coverage.regions).toEqual([
      { name: 'Sub-Saharan Africa', signal_count: 6 },
      { name: 'Europe', signal_count: 1 },
    ]);
    const names = async (q: string) =>
      (await get(`/api/v1/sources?${q}`)).body.data.map((s: { name: string }) => s.name);
    expect(await names('tier=core')).toEqual(['Analytics Wire']);
    expect(await names('region=Sub-Saharan%20Africa')).toEqual(['Field Blog']);
    expect(await names('layer=political')).toEqual(['Field Blog']);
    expect(await names('region=Europe&layer=cyber')).toEqual(['Analytics Wire']);
    expect(await names('tier=discovered')).toEqual([]);
  });

  it('trending: spike ratios with the counts behind them, cached 10 minutes', async () => {
    const { res, body } = await get('/api/v1/trending');
    expect(res.headers.get('cache-control')).toBe('private, max-age=600');
    expect(body.window).toEqual({ start: '2026-11-22T06:00:00.000Z', end: NOW.toISOString() });
    expect(body.baseline_window).toEqual({
      start: '2026-11-15T06:00:00.000Z',
      end: '2026-11-22T06:00:00.000Z',
    });
    expect(body.layers).toEqual([
      { threat_layer: 'cyber', spike_ratio: 4, recent_count: 3, baseline_count: 0, expected_count: 0 },
      { threat_layer: 'military', spike_ratio: 3.5, recent_count: 6, baseline_count: 28, expected_count: 1 },
      { threat_layer: 'political', spike_ratio: 2, recent_count: 1, baseline_count: 0, expected_count: 0 },
    ]);
    expect(body.countries).toEqual([
      {
        country_code: 'UA',
        region: 'Europe',
        spike_ratio: 5,
        recent_count: 9,
        baseline_count: 28,
        expected_count: 1,
      },
      {
        country_code: 'FR',
        region: 'Europe',
        spike_ratio: 2,
        recent_count: 1,
        baseline_count: 0,
        expected_count: 0,
      },
    ]);
    const again = await get('/api/v1/trending');
    expect(again.res.headers.get('x-cache')).toBe('HIT');
    expect(again.body).toEqual(body);
  });

  it('compound crises: per window, with each layer’s contribution', async () => {
    const { res, body } = await get('/api/v1/compound-crises');
    expect(res.headers.get('cache-control')).toBe('private, max-age=300');
    const [acute, chronic] = body.data;
    expect(acute.window_type).toBe('acute');
    expect(acute.window).toEqual({ start: '2026-11-15T12:00:00.000Z', end: NOW.toISOString() });
    expect(acute.data).toEqual([
      {
        country_code: 'UA',
        region: 'Europe',
        composite_severity: 6.41, // (6.4 + 5.42)/2 + 0.5
        layer_count: 2,
        layers: [
          {
            threat_layer: 'cyber',
            severity: 6.4,
            share: 0.541,
            signal_count: 3,
            crisis_count: 3,
            mean_score: 6,
            max_score: 7,
          },
          // mean (42 + 28·3)/34 = 3.706: 0.6·3.706 + 0.4·8 = 5.42
          {
            threat_layer: 'military',
            severity: 5.42,
            share: 0.459,
            signal_count: 34,
            crisis_count: 6,
            mean_score: 3.71,
            max_score: 8,
          },
        ],
        // The map of this country in this window, on the API that answered.
        map_url: '/api/v1/map.svg?country=UA&days=7',
      },
    ]);
    expect(acute.map_url).toBe('/api/v1/map.svg?days=7');
    expect(chronic.map_url).toBe('/api/v1/map.svg?days=30');
    expect(chronic.window).toEqual({ start: '2026-10-23T12:00:00.000Z', end: NOW.toISOString() });
    expect(
      chronic.data.map((c: { country_code: string; composite_severity: number }) => [
        c.country_code,
        c.composite_severity,
      ]),
    ).toEqual([
      ['UA', 7.94], // (9 + 6.4 + 5.42)/3 + 1
      ['SD', 7.5], // (8 + 6)/2 + 0.5
    ]);
    const chronicOnly = (await get('/api/v1/compound-crises?window_type=chronic&min_score=7.6')).body;
    expect(chronicOnly.data).toHaveLength(1);
    expect(chronicOnly.data[0].data.map((c: { country_code: string }) => c.country_code)).toEqual(['UA']);
    const limited = (await get('/api/v1/compound-crises?window_type=chronic&limit=1')).body.data[0];
    expect(limited).toMatchObject({ total: 2, data: [{ country_code: 'UA' }] });
  });

  it('clusters: related signals grouped per layer with their terms, entities and score (public)', async () => {
    const { body } = await get('/api/v1/clusters', false);
    expect(body.window).toEqual({ start: '2026-11-19T12:00:00.000Z', end: NOW.toISOString() });
    expect(body.signals_considered).toBe(23); // 6 + 13 routine (7 … 67 h ago; 72 h is outside) + 3 + 1
    expect(
      body.data.map((c: { threat_layer: string; signal_count: number }) => [c.threat_layer, c.signal_count]),
    ).toEqual([
      ['military', 6],
      ['cyber', 3], // 6 · ln 4 · 6/6 = 8.32
      ['military', 13], // the routine reports are related too, but below their layer: 3 · ln 14 · 3/4.263 = 5.57
    ]);
    const [military, cyber, routine] = body.data;
    expect([cyber.score, routine.score]).toEqual([8.32, 5.57]);
    // layer mean over the window (6 stories + 13 routine 3.0s) = 81/19 = 4.263; 7 · ln 7 · 7/4.263
    expect(military).toMatchObject({ mean_score: 7, layer_mean_score: 4.26, lift: 1.642, score: 22.37 });
    expect(military.top_entities.map((e: { name: string }) => e.name)).toEqual([
      'Armed Forces of Ukraine',
      'Kharkiv',
    ]);
    expect(military.countries).toEqual([{ country_code: 'UA', signal_count: 6 }]);
    expect(cyber.top_entities.map((e: { name: string }) => e.name)).toEqual(['Frostbite Group', 'Kharkiv']);
    expect(cyber.signal_ids).toHaveLength(3);
    expect((await get('/api/v1/clusters?threat_layer=cyber', false)).body.data).toHaveLength(1);
    expect((await get('/api/v1/clusters?country_code=fr', false)).body.data).toHaveLength(0);
    expect((await get('/api/v1/clusters?min_signals=4', false)).body.data).toHaveLength(2);
  });

  it('entity: signals, layers, timeline and co-mention graph', async () => {
    const { body } = await get('/api/v1/entity?name=kharkiv&days=7&limit=4');
    expect(body.entity).toEqual({ name: 'Kharkiv', types: ['location'] });
    expect(body.total_signals).toBe(9);
    expect(body.layers).toEqual([
      { threat_layer: 'military', signal_count: 6 },
      { threat_layer: 'cyber', signal_count: 3 },
    ]);
    expect(body.timeline).toHaveLength(8); // 15 … 22 November
    expect(body.timeline.at(-1)).toEqual({ date: '2026-11-22', signal_count: 9 });
    expect(body.timeline.slice(0, -1).every((d: { signal_count: number }) => d.signal_count === 0)).toBe(
      true,
    );
    expect(body.graph.nodes.map((n: { id: string; signal_count: number }) => [n.id, n.signal_count])).toEqual(
      [
        ['location:kharkiv', 9],
        ['organization:armed forces of ukraine', 6],
        ['organization:frostbite group', 3],
      ],
    );
    expect(body.graph.edges).toEqual([
      { source: 'location:kharkiv', target: 'organization:armed forces of ukraine', weight: 6 },
      { source: 'location:kharkiv', target: 'organization:frostbite group', weight: 3 },
    ]);
    expect(body.data).toHaveLength(4);
    expect(body.data[0]).toMatchObject({
      threat_layer: 'military',
      published_at: '2026-11-22T11:50:00.000Z',
    });
    expect(body.pagination).toEqual({
      limit: 4,
      offset: 0,
      has_more: true,
      next_offset: 4,
      next_cursor: expect.any(String),
    });
    const last = (await get('/api/v1/entity?name=Kharkiv&limit=4&offset=8')).body;
    expect(last.data).toHaveLength(1);
    expect(last.pagination.has_more).toBe(false);
    expect(last.total_signals).toBe(9);
  });

  it('entity: an unknown name is a 404', async () => {
    const res = await app.fetch('/api/v1/entity?name=Atlantis', { headers: { 'X-Api-Key': app.key } });
    expect(res.status).toBe(404);
    expect((await res.json<{ code: string }>()).code).toBe('not_found');
  });

  it('stats: volumes, tiers, languages and layers (public, cached 10 minutes)', async () => {
    const { res, body } = await get('/api/v1/stats', false);
    expect(res.headers.get('cache-control')).toBe('public, max-age=600');
    expect(body.signals).toEqual({ total: 47, last_24h: 14, last_7d: 38 });
    expect(body.sources.by_tier).toEqual([
      { tier: 'core', total: 1, active: 1 },
      { tier: 'community', total: 1, active: 1 },
      { tier: 'discovered', total: 0, active: 0 },
    ]);
    expect(body.languages).toEqual({
      count: 2,
      by_language: [
        { name: 'en', signal_count: 46 },
        { name: 'fr', signal_count: 1 },
      ],
    });
    expect(body.layers.find((l: { threat_layer: string }) => l.threat_layer === 'military')).toEqual({
      threat_layer: 'military',
      total: 34,
      last_24h: 10,
    });
  });

  it('brief: the heuristic without an LLM, citing its signals', async () => {
    const { res, body } = await get('/api/v1/brief');
    expect(res.headers.get('cache-control')).toBe('private, max-age=900');
    expect(body).toMatchObject({
      window: { start: '2026-11-22T08:00:00.000Z', end: NOW.toISOString() },
      generator: 'heuristic',
      fallback_reason: 'no LLM configured',
      numbers: { signal_count: 10, crisis_count: 9, country_count: 2 },
    });
    expect(body.headline).toMatch(/^Shelling near Kharkiv/);
    expect(body.active_theaters.map((t: { name: string }) => t.name)).toEqual(['Ukraine', 'France']);
    expect(body.active_theaters[0].summary).toMatch(/^9 signals \(weight 60, peak 8\)/);
    expect(
      body.key_entities.map((e: { name: string; signal_count: number }) => [e.name, e.signal_count]),
    ).toEqual([
      ['Kharkiv', 9],
      ['Armed Forces of Ukraine', 6],
      ['Frostbite Group', 3],
    ]);
    expect(body.signal_ids.length).toBeGreaterThan(0);
    expect(body.map_url).toBe('/api/v1/map.svg?hours=4');
    // The link leads to the map of that window.
    const map = await app.fetch(body.map_url);
    expect(map.status).toBe(200);
    expect(await map.text()).toContain('<title id="map-t">Events of the last 4 h</title>');
  });

  it.each(['/api/v1/stats', '/api/v1/clusters?days=7'])(
    '%s sends an ETag and answers If-None-Match with 304',
    async (path) => {
      const first = await app.fetch(path);
      expect(first.status).toBe(200);
      const tag = first.headers.get('etag');
      expect(tag).toBeTruthy();
      const again = await app.fetch(path, { headers: { 'If-None-Match': tag! } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
    },
  );

  it('the OpenAPI document describes every analytics route with the statuses it sends', async () => {
    const doc = (await get('/api/v1/openapi.json', false)).body;
    const statuses = (path: string) => Object.keys(doc.paths[path].get.responses).sort();
    expect(statuses('/api/v1/snapshots')).toEqual(['200', '400', '401', '429', '500', '503']);
    expect(statuses('/api/v1/sources')).toEqual(['200', '400', '401', '429', '500', '503']);
    // Every route answers an unknown query parameter with a 400, so every route declares one.
    expect(statuses('/api/v1/trending')).toEqual(['200', '400', '401', '429', '500', '503']);
    expect(statuses('/api/v1/compound-crises')).toEqual(['200', '400', '401', '429', '500', '503']);
    expect(statuses('/api/v1/clusters')).toEqual(['200', '304', '400', '401', '429', '500', '503']);
    expect(statuses('/api/v1/entity')).toEqual(['200', '400', '401', '404', '429', '500', '503']);
    expect(statuses('/api/v1/brief')).toEqual(['200', '400', '401', '429', '500', '503']);
    expect(statuses('/api/v1/stats')).toEqual(['200', '304', '400', '401', '429', '500', '503']);
    expect(doc.paths['/api/v1/stats'].get.security).toEqual([]);
    expect(doc.paths['/api/v1/brief'].get.security).toBeDefined();
  });

  it.each([
    ['/api/v1/snapshots?limit=501', 'limit'],
    ['/api/v1/snapshots?limit=0', 'limit'],
    ['/api/v1/snapshots?region=Mars', 'region'],
    ['/api/v1/snapshots?layer=weather', 'layer'],
    ['/api/v1/snapshots?start=yesterday', 'start'],
    ['/api/v1/snapshots?end=2026-13-01', 'end'],
    ['/api/v1/snapshots?start=2026-11-22&end=2026-11-01', 'start'],
    ['/api/v1/sources?tier=gold', 'tier'],
    ['/api/v1/sources?region=Atlantis', 'region'],
    ['/api/v1/sources?layer=weather', 'layer'],
    ['/api/v1/compound-crises?window_type=weekly', 'window_type'],
    ['/api/v1/compound-crises?min_score=11', 'min_score'],
    ['/api/v1/compound-crises?min_score=abc', 'min_score'],
    ['/api/v1/compound-crises?limit=101', 'limit'],
    ['/api/v1/clusters?days=31', 'days'],
    ['/api/v1/clusters?days=0', 'days'],
    ['/api/v1/clusters?min_signals=1', 'min_signals'],
    ['/api/v1/clusters?min_signals=x', 'min_signals'],
    ['/api/v1/clusters?threat_layer=weather', 'threat_layer'],
    ['/api/v1/clusters?country_code=XX', 'country_code'],
    ['/api/v1/entity', 'name'],
    ['/api/v1/entity?name=K', 'name'],
    ['/api/v1/entity?name=%20K%20', 'name'],
    ['/api/v1/entity?name=Kharkiv&days=366', 'days'],
    ['/api/v1/entity?name=Kharkiv&days=0', 'days'],
    ['/api/v1/entity?name=Kharkiv&limit=101', 'limit'],
    ['/api/v1/entity?name=Kharkiv&offset=-1', 'offset'],
  ])('%s is a 400 naming %s', async (path, field) => {
    const res = await app.fetch(path, { headers: { 'X-Api-Key': app.key } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = await res.json<{ code: string; errors: { path: string }[] }>();
    expect(body.code).toBe('invalid_request');
    expect(body.errors.map((e) => e.path)).toContain(field);
  });

  it.each(['snapshots', 'sources', 'trending', 'compound-crises', 'entity?name=Kharkiv', 'brief'])(
    '/api/v1/%s needs a key',
    async (path) => {
      const res = await app.fetch(`/api/v1/${path}`);
      expect(res.status).toBe(401);
      expect((await res.json<{ code: string }>()).code).toBe('missing_api_key');
    },
  );
});
