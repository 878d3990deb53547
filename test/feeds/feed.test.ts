import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { ingestSignals } from '../../src/ingest/pipeline';
import { memoryStore } from '../../src/store/memory';
import { FIXTURE, fixtureItems, type FixtureName } from '../support/fixture';
import { backends, startTestApp, withTestApp, expectInvalid } from '../support/harness';
import { decodeHtml, NASTY, xmlVisible } from './nasty';

type Name = FixtureName | keyof typeof NASTY;
const ALL = { ...FIXTURE, ...NASTY } as Record<
  Name,
  { source_url: string; title: string; published_at: string }
>;
const byUrl = new Map(Object.entries(ALL).map(([name, item]) => [item.source_url, name as Name]));
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  isArray: (name) => ['item', 'entry', 'category', 'link', 'atom:link'].includes(name),
});

/** Well-formed XML 1.0 with no character XML forbids, parsed by an independent parser. */
function parseXml(text: string) {
  expect(XMLValidator.validate(text)).toBe(true);
  expect(text).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/);
  expect(text.startsWith('<?xml version="1.0" encoding="utf-8"?>')).toBe(true);
  return parser.parse(text) as Record<string, any>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
describe.each(backends)('GET /api/v1/feed on $name', (backend) => {
  let clock = Date.parse('2026-11-22T00:00:00Z');
  const nameOf = new Map<string, Name>();
  const idOf = new Map<Name, string>();
  /** Every signal, newest first, ties (lvivGrid and mumbaiFlood) by id: the feed's order. */
  const newestFirst = () =>
    (Object.keys(ALL) as Name[]).sort((a, b) => {
      const [ta, tb] = [ALL[a].published_at, ALL[b].published_at];
      if (ta !== tb) return ta < tb ? 1 : -1;
      return idOf.get(a)! < idOf.get(b)! ? -1 : 1;
    });
  const app = withTestApp({
    open: backend.open,
    seed: async (db) => {
      const result = await ingestSignals(db, [...fixtureItems(), ...Object.values(NASTY)]);
      expect(result).toMatchObject({ accepted: 12, rejected: 0 });
    },
    key: 'pro',
    store: memoryStore(() => clock),
  });
  beforeAll(async () => {
    const feed = await (
      await app.fetch('/api/v1/feed?format=json&limit=50')
    ).json<{
      items: { id: string; external_url: string }[];
    }>();
    for (const item of feed.items) {
      const name = byUrl.get(item.external_url)!;
      nameOf.set(item.id.replace('urn:uuid:', ''), name);
      idOf.set(name, item.id.replace('urn:uuid:', ''));
    }
    expect(nameOf.size).toBe(12);
  });

  /** A fresh cache window per call, so each test sees the database, not another test's render. */
  const get = (path: string, headers: Record<string, string> = {}) => {
    clock += 61_000;
    return app.fetch(path, { headers });
  };
  const rssNames = async (query: string) => {
    const res = await get(`/api/v1/feed?${query}`);
    expect(res.status, await res.clone().text()).toBe(200);
    const items = (parseXml(await res.text()).rss.channel.item ?? []) as { guid: { '#text': string } }[];
    return items.map((item) => nameOf.get(item.guid['#text'].replace('urn:uuid:', '')));
  };

  it('serves RSS 2.0 by default: channel, newest items first, links, guids, dates and categories', async () => {
    const res = await get('/api/v1/feed');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/rss+xml; charset=utf-8');
    const doc = parseXml(await res.text());
    expect(doc.rss['@version']).toBe('2.0');
    const channel = doc.rss.channel;
    expect(channel.title).toBe('Signal Intelligence: latest signals');
    expect(channel.link[0]).toBe(`${app.url}/api/v1/docs`);
    expect(typeof channel.description).toBe('string');
    expect(channel['atom:link'][0]['@rel']).toBe('self');
    expect(channel['atom:link'][0]['@href']).toBe(`${app.url}/api/v1/feed`);
    expect(channel.item).toHaveLength(12);
    const names = channel.item.map((i: any) => nameOf.get(i.guid['#text'].replace('urn:uuid:', '')));
    expect(names).toEqual(newestFirst());
    const lyon = channel.item[names.indexOf('lyonHospital')];
    expect(lyon.title).toBe(FIXTURE.lyonHospital.title);
    expect(lyon.link[0]).toBe(FIXTURE.lyonHospital.source_url);
    expect(lyon.guid['@isPermaLink']).toBe('false');
    expect(new Date(lyon.pubDate).toISOString()).toBe('2026-11-21T09:30:00.000Z');
    expect(lyon.category.map((c: any) => [c['@domain'], c['#text']])).toEqual([
      ['threat_layer', 'cyber'],
      ['significance_score', '8.1'],
      ['signal_valence', 'crisis'],
      ['country', 'FR'],
      ['event_id', expect.stringMatching(UUID)],
      ['corroboration', '1'],
    ]);
    expect(lyon.description).toContain(`<a href="${FIXTURE.lyonHospital.source_url}">Le Journal</a>`);
  });

  it('serves Atom 1.0 with ids, updated times, links and categories', async () => {
    const res = await get('/api/v1/feed?format=atom&layers=cyber');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    const feed = parseXml(await res.text()).feed;
    expect(feed['@xmlns']).toBe('http://www.w3.org/2005/Atom');
    expect(feed.id).toBe(`${app.url}/api/v1/feed?format=atom&layers=cyber`);
    expect(feed.updated).toBe('2026-11-21T20:00:00.000Z'); // the newest item, not the clock
    expect(feed.subtitle).toBe('Signals from the Signal Intelligence API, newest first (layers cyber).');
    expect(feed.link.map((l: any) => l['@rel'])).toEqual(['alternate', 'self']);
    expect(feed.author.name).toBe('Signal Intelligence API'); // required unless every entry has one
    const entries = feed.entry as any[];
    expect(entries.map((e) => nameOf.get(e.id.replace('urn:uuid:', '')))).toEqual([
      'markup',
      'lyonHospital',
      'lvivGrid',
    ]);
    const lviv = entries[2];
    expect(lviv.title['#text']).toBe(FIXTURE.lvivGrid.title);
    expect(lviv.title['@type']).toBe('html');
    expect(lviv.updated).toBe('2026-11-19T12:00:00.000Z');
    expect(lviv.author.name).toBe('Example Wire');
    expect(lviv.link[0]['@href']).toBe(FIXTURE.lvivGrid.source_url);
    expect(lviv.category.map((c: any) => [c['@scheme'], c['@term']])).toEqual([
      ['urn:signal-intel:threat_layer', 'cyber'],
      ['urn:signal-intel:significance_score', '7.5'],
      ['urn:signal-intel:signal_valence', 'update'],
      ['urn:signal-intel:country', 'UA'],
      ['urn:signal-intel:country', 'PL'],
      ['urn:signal-intel:event_id', expect.stringMatching(UUID)],
      ['urn:signal-intel:corroboration', '1'],
    ]);
  });

  it('serves JSON Feed 1.1 with its required fields and tags', async () => {
    const res = await get('/api/v1/feed?format=json&country=NG');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/feed+json; charset=utf-8');
    const feed = await res.json<Record<string, any>>();
    expect(feed.version).toBe('https://jsonfeed.org/version/1.1');
    expect(typeof feed.title).toBe('string');
    expect(feed.feed_url).toBe(`${app.url}/api/v1/feed?country=NG&format=json`);
    expect(Array.isArray(feed.items)).toBe(true);
    expect(feed.authors).toEqual([{ name: 'Signal Intelligence API', url: `${app.url}/api/v1/docs` }]);
    expect(feed.author).toBeUndefined(); // deprecated in 1.1
    for (const item of feed.items) {
      expect(typeof item.id).toBe('string');
      expect(typeof item.content_html === 'string' || typeof item.content_text === 'string').toBe(true);
    }
    const [resolved, port] = feed.items;
    expect([nameOf.get(resolved.id.slice(9)), nameOf.get(port.id.slice(9))]).toEqual([
      'lagosResolved',
      'lagosPort',
    ]);
    expect(resolved).toMatchObject({
      url: FIXTURE.lagosResolved.source_url,
      external_url: FIXTURE.lagosResolved.source_url,
      title: FIXTURE.lagosResolved.title,
      content_text: FIXTURE.lagosResolved.content_display,
      date_published: '2026-11-21T18:00:00.000Z',
      tags: [
        'threat_layer:supply_chain',
        'significance_score:3.5',
        'signal_valence:resolution',
        'country:NG',
        expect.stringMatching(new RegExp(`^event_id:${UUID.source.slice(1)}`)),
        'corroboration:1',
      ],
      authors: [{ name: 'Lagos Ledger' }],
      _signal: { threat_layer: 'supply_chain', significance_score: 3.5, country_codes: ['NG'] },
    });
  });

  /** Every item link of a feed in each format, parsed from the document a reader gets. */
  const itemLinks = async (format: 'rss' | 'atom' | 'json') => {
    const res = await get(`/api/v1/feed?format=${format}&limit=50`);
    expect(res.status).toBe(200);
    const text = await res.text();
    if (format === 'json') return (JSON.parse(text).items as { url: string }[]).map((item) => item.url);
    const doc = parseXml(text);
    if (format === 'rss') return (doc.rss.channel.item as { link: string[] }[]).map((item) => item.link[0]!);
    return (doc.feed.entry as { link: { '@href': string }[] }[]).map((entry) => entry.link[0]!['@href']);
  };

  it.each(['rss', 'atom', 'json'] as const)(
    'links every %s item to its public source page, never to the keyed API',
    async (format) => {
      const links = await itemLinks(format);
      expect(links).toHaveLength(12);
      expect(links.sort()).toEqual(
        Object.values(ALL)
          .map((item) => item.source_url)
          .sort(),
      );
      for (const link of links) expect(link).not.toContain('/api/v1/signals');
    },
  );

  it('gives the links to its own origin (the docs page) without a key: no click lands on a 401', async () => {
    const res = await get('/api/v1/feed?format=atom&limit=50');
    const feed = parseXml(await res.text()).feed;
    const own = [
      ...feed.link.map((l: any) => l['@href']),
      feed.author.uri,
      ...feed.entry.flatMap((e: any) => e.link.map((l: any) => l['@href'])),
    ].filter((href: string) => href.startsWith(app.url) && !href.includes('/api/v1/feed'));
    expect(own).toContain(`${app.url}/api/v1/docs`);
    for (const href of new Set(own)) expect((await fetch(href)).status, href).toBe(200);
  });

  it.each(['rss', 'atom'] as const)(
    'dates an empty %s feed at the current time, not 1970',
    async (format) => {
      const before = Date.now();
      const res = await get(`/api/v1/feed?format=${format}&search=nothingmatchesthisword`);
      const after = Date.now();
      expect(res.status).toBe(200);
      const doc = parseXml(await res.text());
      const stamp =
        format === 'rss'
          ? (expect(doc.rss.channel.item).toBeUndefined(), doc.rss.channel.lastBuildDate)
          : doc.feed.updated;
      if (format === 'atom') expect(doc.feed.entry).toBeUndefined();
      // RSS dates have whole seconds.
      const time = Date.parse(stamp);
      expect(time).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
      expect(time).toBeLessThanOrEqual(after);
    },
  );

  it('keeps hostile text intact and inert in RSS', async () => {
    const item = parseXml(await (await get('/api/v1/feed?layers=cyber&limit=1')).text()).rss.channel.item[0];
    expect(item.title).toBe(xmlVisible(NASTY.markup.title));
    // The description is HTML: the payload is escaped text in it, never markup.
    expect(item.description).toContain(
      '&lt;script&gt;window.__pwned = 1&lt;/script&gt;&lt;img src=x onerror=&quot;window.__pwned = 2&quot;&gt; &amp; ]]&gt; twice ]]&gt; 🌍 ctrl done',
    );
    expect(item.description).not.toMatch(/<script|<img/);
    expect(item.description).toContain(
      '<a href="https://nasty.example.com/markup?a=1&amp;b=2">Nasty &lt;Wire&gt; &amp; Co</a>',
    );
  });

  it('keeps hostile text intact and inert in Atom', async () => {
    const entry = parseXml(await (await get('/api/v1/feed?format=atom&layers=cyber&limit=1')).text()).feed
      .entry[0];
    expect(decodeHtml(entry.title['#text'])).toBe(xmlVisible(NASTY.markup.title));
    expect(entry.summary['#text']).not.toMatch(/<script|<img/);
    expect(decodeHtml(entry.summary['#text'])).toContain(xmlVisible(NASTY.markup.content_display));
  });

  it('keeps hostile text exact in JSON Feed, control characters included', async () => {
    const feed = (await (await get('/api/v1/feed?format=json&layers=cyber&limit=1')).json()) as any;
    expect(feed.items[0].title).toBe(NASTY.markup.title);
    expect(feed.items[0].content_text).toBe(NASTY.markup.content_display);
    expect(feed.items[0].content_html).not.toMatch(/<script|<img/);
  });

  it.each([
    ['layers=cyber,military', ['markup', 'lyonHospital', 'kyivStrike', 'lvivGrid']],
    ['country=ua', ['kyivStrike', 'lvivGrid']],
    ['region=Sub-Saharan%20Africa', ['lagosResolved', 'lagosPort']],
    ['valence=resolution', ['lagosResolved']],
    ['min_score=8.5', ['markup', 'globalOutbreak', 'kyivStrike']],
    ['search=strike%20-missile', ['lagosResolved', 'lagosPort']],
    ['city=lag', ['lagosResolved', 'lagosPort']],
    ['start=2026-11-21&end=2026-11-21T10:00:00Z', ['lyonHospital', 'globalOutbreak']],
    ['bbox=40,-80,50,-70', ['ottawaVote']],
    ['anomaly=true', ['mumbaiFlood']],
    ['limit=3', ['markup', 'lagosResolved', 'lyonHospital']],
  ])('filters %s', async (query, expected) => {
    expect(await rssNames(query)).toEqual(expected);
  });

  it.each([
    ['format=xml', 'format'],
    ['limit=51', 'limit'],
    ['limit=0', 'limit'],
    ['min_score=11', 'min_score'],
    ['layers=weather', 'layers'],
    ['country=XX', 'country'],
    ['region=Mars', 'region'],
    ['valence=maybe', 'valence'],
    ['start=yesterday', 'start'],
    ['bbox=1,2,3', 'bbox'],
    ['anomaly=yes', 'anomaly'],
    [`search=${'x'.repeat(201)}`, 'search'],
    ['city=', 'city'],
    ['end=2026-13-01', 'end'],
    ['start=2026-11-21&end=2026-11-20', 'start'],
  ])('rejects %s naming %s', async (query, field) => {
    await expectInvalid(await get(`/api/v1/feed?${query}`), field);
  });

  it('sends a strong ETag and answers a matching If-None-Match with 304', async () => {
    const first = await get('/api/v1/feed?layers=health');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(first.headers.get('cache-control')).toBe('public, max-age=60');
    for (const tag of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await get('/api/v1/feed?layers=health', { 'If-None-Match': tag });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
    }
    const stale = await get('/api/v1/feed?layers=health', { 'If-None-Match': '"stale"' });
    expect(stale.status).toBe(200);
    const other = await get('/api/v1/feed?layers=military');
    expect(other.headers.get('etag')).not.toBe(etag);
  });

  it('shares a rendered feed from the store until it expires', async () => {
    const own = await backend.open();
    let now = Date.parse('2026-11-22T00:00:00Z');
    const server = await startTestApp(own.db, { store: memoryStore(() => now) });
    try {
      await ingestSignals(own.db, [FIXTURE.ottawaVote]);
      const read = async () => {
        const res = await server.fetch('/api/v1/feed?format=json');
        return { etag: res.headers.get('etag'), items: (await res.json<{ items: unknown[] }>()).items };
      };
      const first = await read();
      expect(first.items).toHaveLength(1);
      await ingestSignals(own.db, [FIXTURE.tokyoMarkets]);
      // Same cache window: the stored render and its ETag, without a query.
      expect(await read()).toEqual(first);
      // Past its lifetime the feed is rendered again and shows the new signal.
      now += 61_000;
      const fresh = await read();
      expect(fresh.items).toHaveLength(2);
      expect(fresh.etag).not.toBe(first.etag);
    } finally {
      await server.close();
      await own.close();
    }
  });

  it('is public, takes ?api_key= for feed readers and never echoes it', async () => {
    const anonymous = await get('/api/v1/feed?limit=1');
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('x-ratelimit-tier')).toBe('public');
    const keyed = await get(`/api/v1/feed?limit=1&api_key=${app.key}`);
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get('x-ratelimit-tier')).toBe('pro');
    const text = await keyed.text();
    expect(text).not.toContain(app.key);
    expect(text).not.toContain('api_key');
    const bad = await get('/api/v1/feed?api_key=sig_not-a-real-key');
    expect(bad.status).toBe(401);
    expect((await bad.json<{ code: string }>()).code).toBe('invalid_api_key');
  });

  it('links to PUBLIC_BASE_URL when it is set', async () => {
    const other = await startTestApp(app.db, {
      config: { PUBLIC_BASE_URL: 'https://signals.example.org/' },
    });
    try {
      const feed = (await (await other.fetch('/api/v1/feed?format=json&limit=1')).json()) as any;
      expect(feed.home_page_url).toBe('https://signals.example.org/api/v1/docs');
      expect(feed.feed_url).toBe('https://signals.example.org/api/v1/feed?format=json&limit=1');
      expect(feed.items[0].url).toBe(feed.items[0].external_url);
    } finally {
      await other.close();
    }
  });
});
