import { parse } from 'csv-parse/sync';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { CSV_COLUMNS } from '../../src/signals/csv';
import { BULK, bulkItems, FIXTURE, fixtureItems } from '../support/fixture';
import { testDatabaseUrl, testRedisUrl } from '../support/services';
import { embedCsp } from '../support/harness';
import { withApiWorker } from './services';
import { adminPost, issueKeyThrough } from './workerd';

const HOUR = 3_600_000;
/** Two signals of the last hours, so the embed's look-back window has something to show. */
const recentItems = () => ({
  quake: {
    threat_layer: 'disaster',
    significance_score: 6.4,
    signal_valence: 'crisis',
    title: 'Earthquake shakes Valparaiso port district',
    content_display: 'A strong earthquake shook the port district of Valparaiso; cranes were halted.',
    country_codes: ['CL'],
    published_at: new Date(Date.now() - HOUR).toISOString(),
    source_url: 'https://wire.example.com/workerd/valparaiso-quake',
    source: { name: 'Example Wire', tier: 'core' },
  },
  oslo: {
    threat_layer: 'cyber',
    significance_score: 7.9,
    signal_valence: 'crisis',
    title: 'Ransomware takes Oslo municipal services offline',
    content_display: 'Oslo said ransomware took several municipal services offline overnight.',
    country_codes: ['NO'],
    published_at: new Date(Date.now() - 2 * HOUR).toISOString(),
    source_url: 'https://wire.example.com/workerd/oslo-ransomware',
    source: { name: 'Example Wire', tier: 'core' },
  },
});
const RECENT = recentItems();

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  isArray: (name) => ['item', 'entry'].includes(name),
});
const text = (node: unknown) =>
  typeof node === 'string' ? node : String((node as Record<string, unknown>)['#text']);

/** The item titles of a feed, in order, parsed by an independent parser per format. */
function feedTitles(format: string, body: string): string[] {
  if (format === 'json')
    return (JSON.parse(body) as { items: { title: string }[] }).items.map((i) => i.title);
  expect(XMLValidator.validate(body)).toBe(true);
  const doc = xml.parse(body) as Record<string, any>;
  const items = (format === 'rss' ? doc.rss.channel.item : doc.feed.entry) ?? [];
  return (items as { title: unknown }[]).map((item) => text(item.title));
}

const embedTitles = (html: string) => [...html.matchAll(/class="t"[^>]*>([^<]*)</g)].map((m) => m[1]);

/** RFC 4180, strictly: CRLF records, exact quoting, every row as wide as the header. */
const parseCsv = (body: string) =>
  parse(body, { record_delimiter: '\r\n', relax_quotes: false, relax_column_count: false });

// Feeds, the embed and the export served by the API Worker in workerd, with their rendered
// representations cached in Redis through the Upstash store.
describe.skipIf(!testDatabaseUrl() || !testRedisUrl())('API Worker in workerd: feeds, embed, export', () => {
  let proKey: string;
  let lastIp = 0;

  const worker = withApiWorker({ LOG_LEVEL: 'warn' });
  beforeAll(async () => {
    const ingest = await adminPost(worker, '/api/v1/admin/signals', [
      ...fixtureItems(),
      ...Object.values(RECENT),
      ...bulkItems('workerd/'),
    ]);
    expect(ingest.status).toBe(200);
    expect(await ingest.json()).toMatchObject({ accepted: 12 + BULK, rejected: 0 });
    proKey = await issueKeyThrough(worker, 'feeds-workerd@example.org');
  }, 120_000);

  /** A client of its own per call site (TEST-NET-3), so the per-IP cap never spills between tests. */
  const client = () => {
    const ip = `203.0.113.${++lastIp}`;
    return (path: string, headers: Record<string, string> = {}) =>
      worker.fetch(path, { headers: { 'CF-Connecting-IP': ip, ...headers } });
  };
  const expectProblem = async (res: Response, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({ status, code });
  };
  /** The validator and its use: same ETag on 304, no body, and a changed tag gets the body. */
  const expectConditional = async (get: ReturnType<typeof client>, path: string) => {
    const first = await get(path);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    const body = await first.text();

    const notModified = await get(path, { 'If-None-Match': etag });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(etag);
    expect(await notModified.text()).toBe('');
    expect((await get(path, { 'If-None-Match': `W/${etag}` })).status).toBe(304);

    const changed = await get(path, { 'If-None-Match': '"something-else"' });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).toBe(etag);
    expect(await changed.text()).toBe(body);
  };

  const cyberNewestFirst = [RECENT.oslo.title, FIXTURE.lyonHospital.title, FIXTURE.lvivGrid.title];

  it.each([
    ['rss', 'application/rss+xml; charset=utf-8'],
    ['atom', 'application/atom+xml; charset=utf-8'],
    ['json', 'application/feed+json; charset=utf-8'],
  ])('serves the %s feed of the filtered signals, newest first', async (format, contentType) => {
    const get = client();
    const res = await get(`/api/v1/feed?format=${format}&layers=cyber`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(contentType);
    expect(res.headers.get('x-ratelimit-tier')).toBe('public');
    expect(feedTitles(format, await res.text())).toEqual(cyberNewestFirst);
  });

  it('defaults to RSS and applies country and limit', async () => {
    const get = client();
    const rss = await get('/api/v1/feed?layers=cyber');
    expect(rss.headers.get('content-type')).toBe('application/rss+xml; charset=utf-8');
    expect(feedTitles('rss', await rss.text())).toEqual(cyberNewestFirst);

    const res = await get('/api/v1/feed?format=json&country=UA&limit=1');
    const feed = await res.json<{ version: string; items: { id: string; external_url: string }[] }>();
    expect(feed.version).toBe('https://jsonfeed.org/version/1.1');
    expect(feed.items.map((item) => item.external_url)).toEqual([FIXTURE.kyivStrike.source_url]);
    expect(feed.items[0]!.id).toMatch(/^urn:uuid:[0-9a-f-]{36}$/);

    await expectProblem(await get('/api/v1/feed?format=xml'), 400, 'invalid_request');
    await expectProblem(await get('/api/v1/feed?limit=51'), 400, 'invalid_request');
  });

  it('takes the key as ?api_key= for feed readers, and never echoes it', async () => {
    const get = client();
    const res = await get(`/api/v1/feed?format=json&layers=cyber&api_key=${proKey}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-tier')).toBe('pro');
    expect(res.headers.get('x-ratelimit-limit')).toBe('2000');
    const body = await res.text();
    expect(feedTitles('json', body)).toEqual(cyberNewestFirst);
    expect(body).not.toContain(proKey);
    expect(body).not.toContain('api_key');

    const wrong = `sig_${'A'.repeat(40)}`;
    await expectProblem(await get(`/api/v1/feed?api_key=${wrong}`), 401, 'invalid_api_key');
  });

  it('answers a current If-None-Match on the feed with 304', async () => {
    const get = client();
    for (const format of ['rss', 'atom', 'json']) {
      await expectConditional(get, `/api/v1/feed?format=${format}&layers=military,cyber`);
    }
    await expectConditional(get, `/api/v1/feed?format=atom&api_key=${proKey}`);
    // The rendered representations are shared through Redis, not kept in the isolate.
    expect((await worker.services.storeKeys('si:kv:public:v1:*')).length).toBeGreaterThanOrEqual(4);
  });

  it('serves the embed as frameable HTML with its own hashed script and style, and no X-Frame-Options', async () => {
    const get = client();
    const res = await get('/embed?hours=6&theme=dark');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('x-frame-options')).toBeNull();
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await res.text();
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(embedTitles(html)).toEqual([RECENT.quake.title, RECENT.oslo.title]);

    // The hashes workerd computed (WebCrypto) match the code it served.
    expect(res.headers.get('content-security-policy')!.split('; ')).toEqual(embedCsp(html));

    const data = await get('/embed/data?hours=6&layers=cyber');
    expect(data.status).toBe(200);
    const { items } = await data.json<{ items: { title: string; source_url: string }[] }>();
    expect(items.map((item) => item.source_url)).toEqual([RECENT.oslo.source_url]);

    // Its error pages stay frameable; every other route forbids framing.
    const bad = await get('/embed?hours=0');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(bad.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; base-uri 'none'; form-action 'none'$/,
    );
    const health = await get('/api/v1/health');
    expect(health.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    expect(health.headers.get('x-frame-options')).toBe('DENY');

    await expectConditional(get, '/embed?hours=6&theme=light');
  });

  it('draws the map as SVG, and answers format=png with 501 (no rasteriser in the Worker)', async () => {
    const get = client();
    const res = await get('/api/v1/map.svg?hours=6&theme=dark');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    const svg = await res.text();
    expect(XMLValidator.validate(svg)).toBe(true);
    expect(svg).toContain('<title id="map-t">Events of the last 6 h</title>');
    expect(svg).toMatch(/data-cc="NO" data-events="1"/);
    await expectProblem(await get('/api/v1/map.svg?format=png'), 501, 'format_unavailable');
    await expectProblem(await get('/api/v1/map.svg?days=31'), 400, 'invalid_request');
    await expectConditional(get, '/api/v1/map.svg?hours=6');
  });

  /** An export fetched by a fresh client: a 200 download of `type`, its file named by `filename`. */
  const download = async (path: string, type: string, filename: RegExp) => {
    const get = client();
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
    expect(res.headers.get('content-disposition')).toMatch(filename);
    return { get, res };
  };

  it('exports CSV per RFC 4180 as a download, formulas neutralised', async () => {
    const { get, res } = await download(
      '/api/export?layer=cyber',
      'text/csv; charset=utf-8',
      /^attachment; filename="signals-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    expect(res.headers.get('x-ratelimit-tier')).toBe('public');
    const body = await res.text();
    expect(body.endsWith('\r\n')).toBe(true);
    const [header, ...rows] = parseCsv(body);
    expect(header).toEqual([...CSV_COLUMNS]);
    const column = (name: (typeof CSV_COLUMNS)[number]) => CSV_COLUMNS.indexOf(name);
    // Score order: 8.1, 7.9, 7.5.
    expect(rows.map((row) => row[column('title')])).toEqual([
      FIXTURE.lyonHospital.title,
      RECENT.oslo.title,
      FIXTURE.lvivGrid.title,
    ]);
    expect(
      rows.find((row) => row[column('source_url')] === FIXTURE.lvivGrid.source_url)![column('country_codes')],
    ).toBe('UA;PL');

    const criminal = parseCsv(await (await get('/api/export?layer=criminal')).text());
    expect(criminal[1]![column('title')]).toBe(`'${FIXTURE.bogotaCartel.title}`);

    await expectConditional(get, '/api/export?layer=cyber');
  });

  it('exports JSON, filtered, with the row limit capped at 1,000', async () => {
    const { get, res } = await download(
      '/api/export?format=json&country=UA',
      'application/json; charset=utf-8',
      /^attachment; filename="signals-[\d-]+\.json"$/,
    );
    const ukraine = await res.json<{ data: { source_url: string }[]; count: number; limit: number }>();
    expect(ukraine).toMatchObject({ count: 2, limit: 200 });
    expect(ukraine.data.map((s) => s.source_url)).toEqual([
      FIXTURE.kyivStrike.source_url,
      FIXTURE.lvivGrid.source_url,
    ]);

    const capped = await (
      await get('/api/export?format=json&limit=5000')
    ).json<{
      data: unknown[];
      count: number;
      limit: number;
    }>();
    expect(capped).toMatchObject({ count: 1000, limit: 1000 });
    expect(capped.data).toHaveLength(1000);

    await expectConditional(get, '/api/export?format=json&valence=resolution');
    await expectProblem(await get('/api/export?format=xlsx'), 400, 'invalid_request');
  });
});
