import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { signals } from '../../src/db/schema';
import { ingestSignals } from '../../src/ingest/pipeline';
import { retractSignal } from '../../src/signals/sync';
import { fixtureItems } from '../support/fixture';
import { backends, withTestApp, expectInvalid } from '../support/harness';

/**
 * Signals of one country each, so each behaviour below reads its own rows whatever the others
 * did to theirs. Scores and times repeat on purpose: only the id then orders them.
 */
const items = (country: string, count: number, tag: string) =>
  Array.from({ length: count }, (_, i) => ({
    threat_layer: 'political',
    significance_score: [5.5, 5.5, 4][i % 3],
    signal_valence: 'update',
    title: `${tag} council note ${i}`,
    content_display: `Routine ${tag} council note ${i} from Lagos.`,
    country_codes: [country],
    city: i % 2 ? 'Geneva' : null,
    lat: i % 2 ? 46.2 : null,
    lng: i % 2 ? 6.15 : null,
    published_at: new Date(Date.UTC(2026, 10, 20) - Math.floor(i / 4) * 3_600_000).toISOString(),
    source_url: `https://council.example.org/${tag}/${i}`,
    source: { name: 'Council Notes', tier: 'community' },
  }));

type Signal = {
  id: string;
  title: string;
  updated_at: string;
  retracted_at: string | null;
  lat: number | null;
  lng: number | null;
};
type Pagination = {
  limit: number;
  offset: number;
  has_more: boolean;
  next_offset: number | null;
  next_cursor: string | null;
};
type Page = { data: Signal[]; pagination: Pagination };

describe.each(backends)('keyset pages and sync on $name', (backend) => {
  const app = withTestApp({
    open: backend.open,
    seed: async (db) => {
      const all = [
        ...fixtureItems(),
        ...items('CH', 23, 'walk'),
        ...items('AT', 12, 'busy'),
        ...items('NZ', 7, 'sync'),
      ];
      expect(await ingestSignals(db, all)).toMatchObject({ accepted: all.length, rejected: 0 });
    },
    key: 'pro',
    deps: { now: () => new Date('2026-11-23T00:00:00Z') },
  });

  const get = (path: string) => app.fetch(path, { headers: { 'X-Api-Key': app.key } });
  const page = async (query: string): Promise<Page> => {
    const res = await get(`/api/v1/signals?${query}`);
    expect(res.status, await res.clone().text()).toBe(200);
    return await res.json<Page>();
  };
  /** Every signal of `query`, following next_cursor (or next_offset) page by page. */
  const walk = async (query: string, by: 'cursor' | 'offset', between?: (n: number) => Promise<void>) => {
    const seen: Signal[] = [];
    let next: string | number | null = by === 'cursor' ? '' : 0;
    for (let n = 0; next !== null; n++) {
      const at: string = by === 'cursor' ? (next === '' ? '' : `&cursor=${next}`) : `&offset=${next}`;
      const result = await page(`${query}${at}`);
      seen.push(...result.data);
      next = by === 'cursor' ? result.pagination.next_cursor : result.pagination.next_offset;
      if (by === 'cursor' && next !== null) {
        expect(next).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(result.pagination.next_offset).toBe(n === 0 ? result.pagination.limit : null);
      }
      if (between && next !== null) await between(n);
    }
    return seen;
  };

  it.each([
    ['country=CH&limit=4'],
    ['country=CH&limit=5&min_score=5'],
    ['country=CH&limit=3&city=gene'],
    ['limit=7'],
    ['limit=4&search=council'],
    ['country=CH&limit=4&format=json&bbox=40,0,50,10'],
  ])('a cursor walk equals the offset walk: %s', async (query) => {
    const byCursor = await walk(query, 'cursor');
    const byOffset = await walk(query, 'offset');
    expect(byCursor.length).toBeGreaterThan(2);
    expect(byCursor.map((s) => s.id)).toEqual(byOffset.map((s) => s.id));
    expect(new Set(byCursor.map((s) => s.id)).size).toBe(byCursor.length);
  });

  it('CSV pages carry the next cursor in X-Next-Cursor', async () => {
    const first = await get('/api/v1/signals?format=csv&country=CH&limit=20');
    const cursor = first.headers.get('x-next-cursor');
    expect(cursor).toBe((await page('country=CH&limit=20')).pagination.next_cursor);
    const rest = await get(`/api/v1/signals?format=csv&country=CH&limit=20&cursor=${cursor}`);
    expect(rest.headers.get('x-next-cursor')).toBeNull();
    const lines = (await rest.text()).trim().split('\r\n');
    expect(lines).toHaveLength(1 + 3); // header and the last 3 of 23
  });

  it('a cursor walk of a sync list equals its offset walk', async () => {
    const query = 'updated_since=2000-01-01&limit=6';
    const byCursor = await walk(query, 'cursor');
    expect(byCursor.map((s) => s.id)).toEqual((await walk(query, 'offset')).map((s) => s.id));
  });

  it('signals inserted between page reads never repeat or skip a page', async () => {
    const before = (await walk('country=AT&limit=3', 'offset')).map((s) => s.id);
    let round = 0;
    const during = await walk('country=AT&limit=3', 'cursor', async () => {
      round += 1;
      // One signal above every page (an offset walk would then repeat a row) and one below.
      const inserted = [
        { ...items('AT', 1, `top${round}`)[0]!, significance_score: 9.9 },
        { ...items('AT', 1, `low${round}`)[0]!, significance_score: 0.5 },
      ];
      expect(await ingestSignals(app.db, inserted)).toMatchObject({ accepted: 2 });
    });
    const ids = during.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Every signal there was at the start, in its order, then the low ones inserted on the way.
    expect(ids.slice(0, before.length)).toEqual(before);
    expect(during.slice(before.length).every((s) => s.title.startsWith('low'))).toBe(true);
    expect(during.some((s) => s.title.startsWith('top'))).toBe(false);
  });

  it('updated_since lists changes oldest first, then catches a revision and a retraction', async () => {
    const query = 'updated_since=2000-01-01T00:00:00Z&country=NZ&limit=3';
    const first = await walk(query, 'cursor');
    expect(first).toHaveLength(7);
    const order = [...first].sort(
      (a, b) => a.updated_at.localeCompare(b.updated_at) || a.id.localeCompare(b.id),
    );
    expect(first.map((s) => s.id)).toEqual(order.map((s) => s.id));
    const last = first.at(-1)!.updated_at;

    const [revised, retracted] = [first[2]!, first[4]!];
    await app.db
      .update(signals)
      .set({ title: 'sync council note, revised', updatedAt: sql`now()` })
      .where(eq(signals.id, revised.id));
    expect(await retractSignal(app.db, retracted.id, new Date('2026-11-22T12:00:00Z'))).toBe(true);
    expect(await retractSignal(app.db, retracted.id)).toBe(false);

    // The recipe: ask again from the last updated_at seen (>=, so dedupe by id).
    const changes = await walk(`updated_since=${encodeURIComponent(last)}&country=NZ&limit=2`, 'cursor');
    const byId = new Map(changes.map((s) => [s.id, s]));
    expect(byId.get(revised.id)).toMatchObject({ title: 'sync council note, revised', retracted_at: null });
    expect(byId.get(retracted.id)).toMatchObject({ retracted_at: '2026-11-22T12:00:00.000Z' });
    expect(byId.get(revised.id)!.updated_at > last).toBe(true);
    expect(
      changes
        .slice(-2)
        .map((s) => s.id)
        .sort(),
    ).toEqual([revised.id, retracted.id].sort());

    // Everywhere else the retracted signal is gone.
    const listed = await walk('country=NZ&limit=100', 'offset');
    expect(listed.map((s) => s.id)).not.toContain(retracted.id);
    expect(listed.map((s) => s.id)).toContain(revised.id);
    expect(listed.every((s) => s.retracted_at === null)).toBe(true);
    expect((await get(`/api/v1/signals/${retracted.id}`)).status).toBe(404);
    expect((await get(`/api/v1/signals/${revised.id}`)).status).toBe(200);
    const exported = await (
      await app.fetch('/api/export?format=json&country=NZ&limit=1000')
    ).json<{
      data: Signal[];
    }>();
    expect(exported.data.map((s) => s.id)).not.toContain(retracted.id);
    expect(exported.data).toHaveLength(6);
    const feed = await (await get('/api/v1/feed?format=json&country=NZ&limit=50')).text();
    expect(feed).toContain('sync council note');
    expect(feed).not.toContain(retracted.title);
    const entity = await (
      await get('/api/v1/entity?name=Lagos&limit=100')
    ).json<{
      data: { id: string }[];
    }>();
    expect(entity.data.map((s) => s.id)).toContain(revised.id);
    expect(entity.data.map((s) => s.id)).not.toContain(retracted.id);
  });

  /** RFC 7946, checked member by member (no GeoJSON consumer is installed here). */
  const checkFeatureCollection = (doc: Record<string, unknown>) => {
    expect(doc.type).toBe('FeatureCollection');
    expect(Array.isArray(doc.features)).toBe(true);
    // §7.1: a FeatureCollection must not carry the members of a Feature or Geometry.
    for (const member of ['geometry', 'properties', 'coordinates', 'geometries'])
      expect(doc).not.toHaveProperty(member);
    for (const feature of doc.features as Record<string, unknown>[]) {
      expect(Object.keys(feature).sort()).toEqual(['geometry', 'id', 'properties', 'type']);
      expect(feature.type).toBe('Feature');
      expect(typeof feature.id).toBe('string');
      const properties = feature.properties as Signal;
      expect(properties).toBeTypeOf('object');
      expect(properties.id).toBe(feature.id);
      const geometry = feature.geometry as { type: string; coordinates: number[] } | null;
      if (properties.lat === null || properties.lng === null) {
        expect(geometry).toBeNull();
      } else {
        expect(Object.keys(geometry!).sort()).toEqual(['coordinates', 'type']);
        expect(geometry!.type).toBe('Point');
        // §3.1.1 and §4: a position is [longitude, latitude], in range.
        expect(geometry!.coordinates).toEqual([properties.lng, properties.lat]);
        const [lng, lat] = geometry!.coordinates as [number, number];
        expect(lng >= -180 && lng <= 180 && lat >= -90 && lat <= 90).toBe(true);
      }
    }
    return doc.features as { id: string; geometry: unknown; properties: Signal }[];
  };

  it('format=geojson is an RFC 7946 FeatureCollection with the pagination as a foreign member', async () => {
    const res = await get('/api/v1/signals?format=geojson&limit=100');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/geo+json');
    const doc = await res.json<Record<string, unknown>>();
    const features = checkFeatureCollection(doc);
    const json = await page('limit=100');
    expect(features.map((f) => f.properties)).toEqual(json.data);
    expect(features.some((f) => f.geometry === null)).toBe(true);
    expect(features.some((f) => f.geometry !== null)).toBe(true);
    expect(doc.pagination).toEqual(json.pagination);

    const next = await get(`/api/v1/signals?format=geojson&limit=2&country=CH`);
    const cursor = (await next.json<{ pagination: Pagination }>()).pagination.next_cursor!;
    const more = await (
      await get(`/api/v1/signals?format=geojson&limit=2&country=CH&cursor=${cursor}`)
    ).json<Record<string, unknown>>();
    const [, second] = (await page('limit=2&offset=2&country=CH')).data.map((s) => s.id);
    expect(checkFeatureCollection(more).map((f) => f.id)[1]).toBe(second);
  });

  it('the export writes GeoJSON too', async () => {
    const res = await app.fetch('/api/export?format=geojson&limit=1000');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/geo+json');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="signals-2026-11-23.geojson"');
    const doc = await res.json<Record<string, unknown>>();
    const features = checkFeatureCollection(doc);
    expect(doc.count).toBe(features.length);
    const json = await (await app.fetch('/api/export?format=json&limit=1000')).json<{ data: Signal[] }>();
    expect(features.map((f) => f.properties)).toEqual(json.data);
  });

  it('the entity list pages by cursor like by offset', async () => {
    const query = '/api/v1/entity?name=Lagos&limit=4';
    const seen: string[][] = [[], []];
    for (const [i, by] of (['cursor', 'offset'] as const).entries()) {
      let next: string | number | null = by === 'cursor' ? '' : 0;
      let total: number | undefined;
      while (next !== null) {
        const at = by === 'cursor' ? (next === '' ? '' : `&cursor=${next}`) : `&offset=${next}`;
        const res = await get(`${query}${at}`);
        expect(res.status, await res.clone().text()).toBe(200);
        const body = await res.json<{
          data: { id: string }[];
          total_signals: number;
          pagination: Pagination;
        }>();
        total ??= body.total_signals;
        expect(body.total_signals).toBe(total);
        seen[i]!.push(...body.data.map((s) => s.id));
        next = by === 'cursor' ? body.pagination.next_cursor : body.pagination.next_offset;
      }
      expect(seen[i]!.length).toBe(total);
    }
    expect(seen[0]!.length).toBeGreaterThan(8);
    expect(seen[0]).toEqual(seen[1]);
    const other = await (
      await get('/api/v1/entity?name=Lagos&limit=4&days=60')
    ).json<{
      pagination: Pagination;
    }>();
    const res = await get(`${query}&cursor=${other.pagination.next_cursor}`);
    expect(res.status).toBe(400);
    expect((await res.json<{ errors: { path: string }[] }>()).errors[0]!.path).toBe('cursor');
  });

  it.each([
    ['cursor=not*base64', 'cursor'],
    ['cursor=bm90LWpzb24', 'cursor'], // "not-json"
    [`cursor=${Buffer.from('["x",1]').toString('base64url')}`, 'cursor'],
    ['cursor=', 'cursor'],
    ['offset=10001', 'offset'],
    ['offset=-1', 'offset'],
    ['updated_since=yesterday', 'updated_since'],
    ['updated_since=2026-11-21T00:00:00', 'updated_since'],
    ['search=-zzzz', 'search'],
    ['search=-zzzz%20OR%20-%22power%20grid%22', 'search'],
    ['search=power%20OR%20-zzzz', 'search'],
    ['format=kml', 'format'],
  ])('rejects %s naming %s', async (query, field) => {
    await expectInvalid(await get(`/api/v1/signals?${query}`), field);
  });

  it('explains the offset cap and exclusion-only searches', async () => {
    const deep = await (
      await get('/api/v1/signals?offset=10001')
    ).json<{
      errors: { message: string }[];
    }>();
    expect(deep.errors[0]!.message).toMatch(/cursor/);
    expect((await get('/api/v1/signals?offset=10000')).status).toBe(200);
    const search = await (
      await get('/api/v1/signals?search=-zzzz')
    ).json<{
      errors: { message: string }[];
    }>();
    expect(search.errors[0]!.message).toMatch(/exclusions alone/);
    expect((await get('/api/v1/signals?search=power%20-zzzz')).status).toBe(200);
    // A stop word is no term: with nothing the index can look up, nothing is read or matched.
    expect((await page('search=the%20-zzzz')).data).toEqual([]);
    expect((await page('search=council%20-zzzz')).data.length).toBeGreaterThan(0);
  });

  it('refuses a cursor with offset, and one from a list with other filters or order', async () => {
    const { pagination } = await page('country=CH&limit=2');
    const cursor = pagination.next_cursor!;
    expect((await get(`/api/v1/signals?country=CH&limit=5&cursor=${cursor}`)).status).toBe(200);
    for (const query of [
      `country=CH&limit=2&cursor=${cursor}&offset=0`,
      `country=AT&limit=2&cursor=${cursor}`,
      `country=CH&limit=2&min_score=1&cursor=${cursor}`,
      `country=CH&limit=2&updated_since=2000-01-01&cursor=${cursor}`,
    ]) {
      const res = await get(`/api/v1/signals?${query}`);
      expect(res.status, query).toBe(400);
      const body = await res.json<{ errors: { path: string }[] }>();
      expect(body.errors.map((e) => e.path)).toEqual(['cursor']);
    }
  });
});
