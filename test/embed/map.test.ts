import { gzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client';
import { ingestSignals } from '../../src/ingest/pipeline';
import { renderMap, type MapEvent } from '../../src/embed/map';
import { rasterizePng } from '../../src/embed/png-node';
import { fixtureItems } from '../support/fixture';
import { backends, withTestApp } from '../support/harness';

const NOW = new Date('2026-11-22T00:00:00Z');

/** Three outlets telling one story in Berlin: one event, however many signals. */
const ECHOES = ['a', 'b', 'c'].map((tag, i) => ({
  threat_layer: 'political' as const,
  significance_score: 6 - i,
  signal_valence: 'crisis' as const,
  title: `Berlin coalition collapses (${tag})`,
  content_display: `The governing coalition in Berlin collapsed, outlet ${tag} reports.`,
  country_codes: ['DE'],
  city: 'Berlin',
  lat: 52.52,
  lng: 13.4,
  language: 'en',
  published_at: '2026-11-21T12:00:00Z',
  source_url: `https://echo-${tag}.example.com/berlin`,
  source: { name: `Echo ${tag}`, tier: 'core' as const },
}));

const SVG_ELEMENTS = new Set(['svg', 'title', 'desc', 'rect', 'g', 'path', 'circle', 'a', 'text']);

/** Parses the SVG strictly and returns every element name in it. */
function svgElements(svg: string): string[] {
  expect(XMLValidator.validate(svg)).toBe(true);
  const names: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === ':@' || key === '#text') continue;
      names.push(key);
      walk(value);
    }
  };
  walk(new XMLParser({ preserveOrder: true, ignoreAttributes: false }).parse(svg));
  return names;
}

const markCounts = (svg: string) =>
  [...svg.matchAll(/<circle [^>]*data-n="(\d+)"/g)].map((m) => Number(m[1]));
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const shaded = (svg: string) =>
  Object.fromEntries(
    [...svg.matchAll(/data-cc="([A-Z]{2})" data-events="(\d+)"/g)].map((m) => [m[1], Number(m[2])]),
  );

describe.each(backends)('GET /api/v1/map.svg on $name', (backend) => {
  const app = withTestApp({
    open: backend.open,
    seed: async (db) => {
      await ingestSignals(db, [...fixtureItems(), ...ECHOES]);
      // Make the three Berlin signals one event, as the linker would: the strongest leads.
      await db.execute(sql`
        UPDATE signals SET event_id = (SELECT id FROM signals WHERE source_url = 'https://echo-a.example.com/berlin'),
          event_lead = source_url = 'https://echo-a.example.com/berlin'
        WHERE source_url LIKE 'https://echo-%.example.com/berlin'`);
    },
    deps: { now: () => NOW },
  });

  const eventsWithCoordinates = async (hours: number) => {
    const rows = await queryRows<{ n: number }>(
      app.db,
      sql`
      SELECT count(DISTINCT event_id)::int AS n FROM signals
      WHERE lat IS NOT NULL AND retracted_at IS NULL AND published_at >= ${new Date(NOW.getTime() - hours * 3_600_000)}`,
    );
    return Number(rows[0]!.n);
  };

  it('is a valid, accessible SVG with one mark per event with coordinates (merged marks count theirs)', async () => {
    const res = await app.fetch('/api/v1/map.svg?days=7');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    const svg = await res.text();
    const elements = svgElements(svg);
    expect(elements[0]).toBe('svg');
    expect(elements.filter((e) => !SVG_ELEMENTS.has(e))).toEqual([]);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 960 \d+" width="960"/);
    expect(svg).toContain('<title id="map-t">Events of the last 7 days</title>');
    expect(svg).toMatch(/<desc id="map-d">\d+ events, \d+ with coordinates drawn as \d+ marks/);
    const counts = markCounts(svg);
    expect(sum(counts)).toBe(await eventsWithCoordinates(168));
    // One <title> per mark.
    expect([...svg.matchAll(/<circle [^>]*>(<title>[^<]+<\/title>)<\/circle>/g)]).toHaveLength(counts.length);
    expect(svg).toContain(
      'Missile strike hits Kyiv power substation · military · score 9.2 · 1 source · 20 Nov 06:00 UTC',
    );
    expect(svg).toContain(
      'href="https://wire.example.com/kyiv-strike" target="_blank" rel="noopener noreferrer"',
    );
  });

  it('shades countries by events, not echoes', async () => {
    const svg = await (await app.fetch('/api/v1/map.svg?days=7&layers=political')).text();
    // Three Berlin signals are one event; Ottawa is another, in Canada.
    expect(shaded(svg)).toEqual({ DE: 1, CA: 1 });
    expect(markCounts(svg)).toEqual([1, 1]);
    expect(svg).toContain('Berlin coalition collapses (a)');
    expect(svg).not.toContain('Berlin coalition collapses (b)');
  });

  it.each([
    ['country=NG&days=7', { NG: 1 }],
    ['region=Europe&days=7', { UA: 2, PL: 1, FR: 1, DE: 1 }],
    ['min_score=9&days=7', { UA: 1 }],
    ['hours=1', {}],
  ])('filters %s', async (query, expected) => {
    const svg = await (await app.fetch(`/api/v1/map.svg?${query}`)).text();
    const got = shaded(svg);
    for (const [code, n] of Object.entries(expected)) expect(got[code]).toBe(n);
    expect(Object.keys(got).sort()).toEqual(Object.keys(expected).sort());
  });

  it('draws the theme asked for, at the width asked for', async () => {
    const light = await (await app.fetch('/api/v1/map.svg?days=7')).text();
    const dark = await (await app.fetch('/api/v1/map.svg?days=7&theme=dark&width=480')).text();
    expect(light).toContain('fill="#f4f7fa" class="sea"');
    expect(dark).toContain('fill="#11151b" class="sea"');
    expect(dark).toMatch(/width="480" height="211"/);
    expect(svgElements(dark)[0]).toBe('svg');
  });

  it('answers If-None-Match with 304', async () => {
    const etag = (await app.fetch('/api/v1/map.svg?days=3')).headers.get('etag')!;
    const again = await app.fetch('/api/v1/map.svg?days=3', { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
  });

  it('rasterises to PNG on Node', async () => {
    const res = await app.fetch('/api/v1/map.svg?days=7&format=png&width=480');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const png = new Uint8Array(await res.arrayBuffer());
    expect([...png.slice(1, 4)].map((b) => String.fromCharCode(b)).join('')).toBe('PNG');
    // IHDR: width and height, big-endian, at bytes 16 and 20.
    const view = new DataView(png.buffer);
    expect([view.getUint32(16), view.getUint32(20)]).toEqual([480, 211]);
    const etag = res.headers.get('etag')!;
    const again = await app.fetch('/api/v1/map.svg?days=7&format=png&width=480', {
      headers: { 'If-None-Match': etag },
    });
    expect(again.status).toBe(304);
  });

  it.each([
    ['layers=weather', 'layers'],
    ['min_score=11', 'min_score'],
    ['region=Atlantis', 'region'],
    ['country=XX', 'country'],
    ['hours=721', 'hours'],
    ['days=31', 'days'],
    ['hours=24&days=1', 'hours'],
    ['theme=sepia', 'theme'],
    ['width=100', 'width'],
    ['format=gif', 'format'],
  ])('rejects %s with a problem+json 400 naming %s', async (query, field) => {
    const res = await app.fetch(`/api/v1/map.svg?${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = await res.json<{ code: string; errors: { path: string }[] }>();
    expect(body.code).toBe('invalid_request');
    expect(body.errors.map((e) => e.path)).toContain(field);
  });
});

describe('GET /api/v1/map.svg where no rasteriser is bundled (as on Workers)', () => {
  const app = withTestApp({
    seed: (db) => ingestSignals(db, fixtureItems()),
    deps: { now: () => NOW, rasterizePng: undefined },
  });

  it('answers format=png with a problem+json 501 that points at the SVG, and still serves the SVG', async () => {
    const res = await app.fetch('/api/v1/map.svg?format=png');
    expect(res.status).toBe(501);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = await res.json<{ code: string; detail: string }>();
    expect(body.code).toBe('format_unavailable');
    expect(body.detail).toContain('omit `format`');
    expect((await app.fetch('/api/v1/map.svg')).status).toBe(200);
  });
});

describe('rasterizePng', () => {
  it('rasterises on a worker thread: the event loop keeps turning while a large PNG renders', async () => {
    const svg = renderMap([], { theme: 'dark', width: 1920, scope: 'Events' });
    await rasterizePng(svg); // the first call also loads the wasm and the font
    let turns = 0;
    let rendering = true;
    const spin = () => {
      turns += 1;
      if (rendering) setImmediate(spin);
    };
    setImmediate(spin);
    const png = await rasterizePng(svg);
    rendering = false;
    expect(new DataView(png.buffer).getUint32(16)).toBe(1920);
    // A render on the event loop would have let it turn once at most.
    expect(turns).toBeGreaterThan(10);
  });
});

describe('renderMap', () => {
  const event = (i: number, lat: number, lng: number): MapEvent => ({
    id: `s${i}`,
    eventId: `e${i}`,
    layer: ['military', 'cyber', 'disaster', 'health'][i % 4]!,
    score: (i % 100) / 10,
    title: `Event number ${i} somewhere in the world with a headline of usual length`,
    lat,
    lng,
    countries: ['US', 'FR', 'IN', 'BR', 'NG'][i % 5] ? [['US', 'FR', 'IN', 'BR', 'NG'][i % 5]!] : [],
    corroboration: 1 + (i % 4),
    publishedAt: new Date(NOW.getTime() - i * 60_000),
    url: `https://news.example.com/${i}`,
  });
  // A deterministic spread over the inhabited latitudes.
  const many = Array.from({ length: 10_000 }, (_, i) =>
    event(i, ((i * 37) % 120) - 50, ((i * 97) % 360) - 180),
  );

  it('keeps 10,000 events under 60 KB gzipped, every one counted by a mark', () => {
    const svg = renderMap(many, { theme: 'light', width: 960, scope: 'Events' });
    expect(sum(markCounts(svg))).toBe(10_000);
    expect(markCounts(svg).length).toBeLessThanOrEqual(300);
    expect(gzipSync(svg).length).toBeLessThan(60_000);
    expect(XMLValidator.validate(svg)).toBe(true);
  });

  it('escapes every text it draws', () => {
    const hostile = {
      ...event(1, 10, 10),
      title: '<script>alert(1)</script> & "x"',
      url: 'https://x.example/?a=1&b="2"',
    };
    const svg = renderMap([hostile], { theme: 'dark', width: 960, scope: '<b>scope</b>' });
    expect(XMLValidator.validate(svg)).toBe(true);
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;');
    expect(svg).toContain('<title id="map-t">&lt;b&gt;scope&lt;/b&gt;</title>');
  });
});
