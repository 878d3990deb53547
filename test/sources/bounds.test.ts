/**
 * Work bounded before it is done, and plain text everywhere: every text field is clipped before
 * per-character work, a document carries at most 5,000 items, an entity bomb stays inert, a long
 * ingest lets health be answered, and titles and summaries are stripped of markup once, by every
 * connector and by the admin ingest.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client';
import {
  CONTENT_MAX,
  MAX_DOCUMENT_ITEMS,
  plainText,
  title,
  TITLE_MAX,
  TooManyItemsError,
} from '../../src/sources/common';
import { detectLanguage } from '../../src/reading/language';
import { seedCatalogue } from '../../src/sources/rows';
import { ConnectorError } from '../../src/sources/types';
import { admin, startTestApp, withTestApp } from '../support/harness';
import { context, parse } from './support';

const MiB = 1024 * 1024;

/** A WHO DON OData document (`value[]`), with `n` items of the given summary. */
function whoDon(n: number, summary = 'Cases reported in the district; response teams deployed.'): string {
  return JSON.stringify({
    value: Array.from({ length: n }, (_, i) => ({
      Id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      DonId: `DON-TEST-${i}`,
      Title: `Test fever ${i} – Freedonia`,
      UrlName: `test-fever-${i}`,
      PublicationDate: '2026-11-20T10:00:00Z',
      LastModified: '2026-11-20T12:00:00Z',
      Summary: summary,
    })),
  });
}

describe('text is clipped before per-character work', () => {
  it('detects language on the stored text, not on megabytes behind it', () => {
    const english =
      'The government said on Tuesday that the emergency services would be working through the night with the help of volunteers. '.repeat(
        20,
      );
    const german = 'Der Fluss trat über die Ufer und die Familien wurden in die Schule gebracht. '.repeat(
      14_000,
    );
    expect(detectLanguage(german)).toBe('de');
    // Before the bound, detection read the whole megabyte (≈3 s) and answered German.
    expect(detectLanguage(english + german)).toBe('en');
  });

  it('clips cleaned text to its bound, with a tag cut at the raw bound dropped, not shown', () => {
    const huge = `<p>${'word '.repeat((2 * MiB) / 5)}</p><a href="https://x.example/${'y'.repeat(100_000)}">link</a>`;
    const text = plainText(huge);
    expect(text.length).toBeLessThanOrEqual(CONTENT_MAX);
    expect(text).not.toContain('<');
    expect(title(`<b>${'Headline '.repeat(MiB / 9)}</b>`)!.length).toBeLessThanOrEqual(TITLE_MAX);
  });

  it('keeps 10 MiB of unknown entities to the bounds of one item', () => {
    const doc = whoDon(1, '&a;'.repeat((10 * MiB) / 3));
    const [item] = parse('who-don', doc);
    expect(item!.content_display.length).toBeLessThanOrEqual(CONTENT_MAX);
  });

  it('never expands DOCTYPE entities: a billion-laughs feed is inert text', () => {
    const bomb = `<?xml version="1.0"?>
<!DOCTYPE rss [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<rss version="2.0"><channel><title>t</title><language>en</language>
<item><title>Earthquake kills 30 in Peru &lol9;</title><link>https://news.example/bomb</link>
<description>&lol9;&lol9;&lol9; Rescuers searched the rubble.</description></item></channel></rss>`;
    let items: ReturnType<typeof parse> = [];
    try {
      items = parse('rss', bomb, context('community'));
    } catch (error) {
      expect(error).toBeInstanceOf(ConnectorError); // refusing it is as good as reading it inert
    }
    for (const item of items) {
      expect(item.content_display.length).toBeLessThan(500);
      expect(item.content_display).not.toContain('lollol');
    }
  });
});

describe('a document carries at most 5,000 items', () => {
  it('refuses a larger document whole, before mapping any item', () => {
    expect(() => parse('who-don', whoDon(MAX_DOCUMENT_ITEMS + 1))).toThrow(TooManyItemsError);
    const atCap = `<rss version="2.0"><channel><title>t</title>${'<item><title>x</title></item>'.repeat(MAX_DOCUMENT_ITEMS + 1)}</channel></rss>`;
    expect(() => parse('rss', atCap)).toThrow(TooManyItemsError);
    expect(parse('who-don', whoDon(3))).toHaveLength(3);
  });
});

describe('markup in plain-text fields', () => {
  const community = context('community');
  const marked = '<b>Earthquake</b> kills 30 &amp; injures <i>hundreds</i> in Peru';
  const clean = 'Earthquake kills 30 & injures hundreds in Peru';

  it('strips tags and decodes entities once in RSS, Atom and JSON Feed titles and summaries', () => {
    const rss = `<rss version="2.0"><channel><title>t</title><language>en</language>
      <item><title>${marked.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</title>
      <link>https://news.example/rss</link>
      <description><![CDATA[<p>Rescuers <a href="https://x.example">searched</a> the rubble &amp;lt;overnight&amp;gt;.</p>]]></description>
      </item></channel></rss>`;
    const [fromRss] = parse('rss', rss, community);
    expect(fromRss!.title).toBe(clean);
    // CDATA holds HTML whose text says "&lt;overnight&gt;": decoded once, it reads <overnight>.
    expect(fromRss!.content_display).toBe(`${clean}\n\nRescuers searched the rubble &lt;overnight&gt;.`);

    const atom = `<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en"><title>t</title>
      <entry><title type="html">${marked.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</title>
      <link href="https://news.example/atom"/><id>urn:test:atom</id><updated>2026-11-20T00:00:00Z</updated>
      <summary type="html">&lt;p&gt;Rescuers searched the rubble.&lt;/p&gt;</summary></entry></feed>`;
    const [fromAtom] = parse('rss', atom, community);
    expect(fromAtom).toMatchObject({
      title: clean,
      content_display: `${clean}\n\nRescuers searched the rubble.`,
    });

    const json = JSON.stringify({
      version: 'https://jsonfeed.org/version/1.1',
      title: 't',
      language: 'en',
      items: [
        {
          id: 'j1',
          url: 'https://news.example/json',
          title: marked,
          content_html: '<p>Rescuers searched the rubble.</p>',
          date_published: '2026-11-20T00:00:00Z',
        },
      ],
    });
    const [fromJson] = parse('rss', json, community);
    expect(fromJson).toMatchObject({
      title: clean,
      content_display: `${clean}\n\nRescuers searched the rubble.`,
    });
  });

  it('strips markup from titles of the JSON connectors too', () => {
    const usgs = JSON.stringify({
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          id: 'tt0001',
          properties: {
            mag: 5.1,
            place: '10 km N of <b>Testville</b>, Peru',
            time: 1763600000000,
            updated: 1763600000000,
            url: 'https://earthquake.usgs.gov/earthquakes/eventpage/tt0001',
            status: 'reviewed',
            title: 'M 5.1 - <b>10 km N of Testville</b>, Peru',
          },
          geometry: { type: 'Point', coordinates: [-75, -10, 30] },
        },
      ],
    });
    const [quake] = parse('usgs', usgs);
    expect(quake!.title).toBe('M 5.1 - 10 km N of Testville, Peru');
    expect(quake!.content_display).not.toMatch(/<\/?b>/);
  });
});

describe('ingest of large and over-cap documents on the real server', () => {
  const app = withTestApp({
    seed: async (db) => {
      await seedCatalogue(db);
    },
    timeout: 180_000,
  });

  const signalCount = async () =>
    (await queryRows<{ n: number }>(app.db, sql`SELECT count(*)::int AS n FROM signals`))[0]!.n;

  it('answers 413 problem+json for a document over the item cap, and ingests nothing', async () => {
    const res = await app.fetch(
      '/api/v1/admin/sources/who-don/ingest',
      admin({ method: 'POST', body: whoDon(MAX_DOCUMENT_ITEMS + 1) }),
    );
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await res.json()).toMatchObject({ status: 413, code: 'payload_too_large' });
    expect(await signalCount()).toBe(0);
  });

  it('answers health while a large document is being parsed, before the ingest writes', async () => {
    // The same server over a database that notes when a write transaction opens: an ingest that
    // parses its whole document in one go opens it before any other request can be read.
    const marks: string[] = [];
    // The first use of the database once armed is the ingest's source lookup: the request has
    // arrived, and what follows is reading, parsing and checking the document.
    let armed = false;
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    const watched = new Proxy(app.db, {
      get(target, prop, receiver) {
        if (armed) {
          armed = false;
          arrived();
        }
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop !== 'transaction' || typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          marks.push('ingest writes');
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const server = await startTestApp(watched);
    try {
      // 4,000 items of long marked-up summaries: seconds of parsing and cleaning.
      const summary = `<p>${'Cases of test fever were reported in the district; teams were deployed. '.repeat(20)}</p>`;
      armed = true;
      const ingest = server.fetch(
        '/api/v1/admin/sources/who-don/ingest?source=' + encodeURIComponent('WHO Disease Outbreak News'),
        admin({ method: 'POST', body: whoDon(4000, summary).replace(/DON-TEST-/g, 'DON-LOAD-') }),
      );
      // Health is asked once the server is handling the ingest, not after a guessed delay.
      await arrival;
      const health = await server.fetch('/api/v1/health');
      marks.push('health answered');
      expect(health.status).toBe(200);
      const ingested = await ingest;
      expect(ingested.status).toBe(200);
      expect((await ingested.json<{ accepted: number }>()).accepted).toBe(4000);
      expect(marks[0]).toBe('health answered');
    } finally {
      await server.close();
    }
  }, 180_000);

  it('stores admin-ingested titles and text without markup', async () => {
    const res = await app.fetch(
      '/api/v1/admin/signals',
      admin({
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify([
          {
            threat_layer: 'cyber',
            significance_score: 5,
            signal_valence: 'update',
            title: '<b>Patch</b> released for &quot;Test&quot; router',
            content_display:
              '<p>The vendor <a href="https://x.example">released</a> a fix &amp; guidance.</p>',
            country_codes: [],
            published_at: '2026-11-20T00:00:00Z',
            source_url: 'https://vendor.example/advisory/markup',
            source: { name: 'Markup test vendor' },
          },
        ]),
      }),
    );
    expect(res.status).toBe(200);
    const [row] = await queryRows<{ title: string; content_display: string }>(
      app.db,
      sql`SELECT title, content_display FROM signals WHERE source_url = 'https://vendor.example/advisory/markup'`,
    );
    expect(row).toEqual({
      title: 'Patch released for "Test" router',
      content_display: 'The vendor released a fix & guidance.',
    });
  });
});
