import { describe, expect, it } from 'vitest';
import { canonicalLink } from '../../src/sources/rss';
import { connectorFor } from '../../src/sources/registry';
import { ConnectorError } from '../../src/sources/types';
import { byId, context, fixture, parse } from './support';

const rssDoc = fixture('rss.xml');
const atomDoc = fixture('atom.xml');
const jsonDoc = fixture('jsonfeed.json');
const gdeltDoc = fixture('gdelt.json');
const community = context('community');

// Layers and scores of news items are the classification rules' (tested in rules.test.ts);
// these tests pin what the connector reads from each format: identity, links, dates, language
// and clean text.
describe('rss connector', () => {
  it('reads RSS 2.0: one identity per link without its fragment, CDATA and escaped markup stripped', () => {
    const items = parse('rss', rssDoc, community);
    const quake = 'rss:https://news.example.com/articles/test-quake';
    // the same link under #0 and #2 is one upstream item (the ingest keeps the first copy)
    expect(items.filter((i) => i.external_ids.includes(quake))).toHaveLength(2);
    expect(byId(items, quake)).toMatchObject({
      title: 'Earthquake kills 30 people in Peru as rescuers search rubble',
      content_display:
        'Earthquake kills 30 people in Peru as rescuers search rubble\n\nRescue teams worked through the night in the test town.',
      language: 'en-gb',
      published_at: '2025-06-23T16:29:51.000Z',
      source_url: 'https://news.example.com/articles/test-quake',
    });
    expect(byId(items, 'rss:https://news.example.com/articles/test-flood').title).toBe(
      'Flood waters force thousands from homes in Bangladesh',
    );
    expect(byId(items, 'rss:https://news.example.com/articles/test-ransomware').content_display).toContain(
      'after the attack & outage.',
    );
    // an item with neither link nor guid is skipped
    expect(items.some((i) => i.title?.includes('without a link'))).toBe(false);
    for (const item of items) expect(item.upstream_updated_at).toBeUndefined();
  });

  it('gives the same identity to guids that differ only by fragment', () => {
    expect(canonicalLink('https://news.example.com/articles/x#2')).toBe(
      canonicalLink('https://news.example.com/articles/x#0'),
    );
    const moved = rssDoc.replace(/#0<\/guid>/g, '#3</guid>');
    expect(parse('rss', moved, community).map((i) => i.external_ids)).toEqual(
      parse('rss', rssDoc, community).map((i) => i.external_ids),
    );
  });

  it('reads Atom: the alternate link, html title and summary, xml:lang, updated as the revision', () => {
    const items = parse('rss', atomDoc, community);
    expect(byId(items, 'rss:https://wire.example.org/a/test-peru')).toMatchObject({
      title: 'Earthquake kills dozens in Peru',
      content_display: 'Earthquake kills dozens in Peru\n\nRescuers search the rubble & count the missing.',
      language: 'en',
      published_at: '2026-01-02T03:04:05.000Z',
      upstream_updated_at: '2026-01-02T05:00:00.000Z',
      source_url: 'https://wire.example.org/a/test-peru',
    });
    const french = items.find((i) => i.source_url === 'https://wire.example.org/fr/test-perou');
    // no <published>: the entry's updated time; its own xml:lang
    if (french) expect(french).toMatchObject({ language: 'fr', published_at: '2026-01-02T04:00:00.000Z' });
  });

  it('reads JSON Feed: url else external_url, content_html stripped, date_modified', () => {
    const items = parse('rss', jsonDoc, community);
    expect(byId(items, 'rss:https://daily.example.net/p/test-ransomware')).toMatchObject({
      title: 'Ransomware attack hits hospitals in three states',
      content_display:
        'Ransomware attack hits hospitals in three states\n\nEmergency rooms diverted ambulances & cancelled surgery.',
      language: 'en',
      published_at: '2026-01-02T00:00:00.000Z',
      upstream_updated_at: '2026-01-02T08:30:00.000Z',
    });
    expect(byId(items, 'rss:https://other.example.com/test-flood')).toMatchObject({
      // +01:00 offset read as written
      published_at: '2026-01-01T11:00:00.000Z',
    });
    expect(items.some((i) => i.title?.includes('without any URL'))).toBe(false);
  });

  it('reads Atom and JSON Feed', () => {
    const atom = `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en"><title>t</title>
      <entry><title>Earthquake kills dozens in Peru</title><link href="https://news.example/a#top"/><id>urn:a</id>
      <updated>2026-01-02T03:04:05Z</updated><summary>Rescuers search rubble.</summary></entry></feed>`;
    expect(parse('rss', atom, community)[0]).toMatchObject({
      threat_layer: 'disaster',
      country_codes: ['PE'],
      language: 'en',
      source_url: 'https://news.example/a',
      published_at: '2026-01-02T03:04:05.000Z',
    });
    const json = JSON.stringify({
      version: 'https://jsonfeed.org/version/1.1',
      title: 't',
      items: [
        {
          id: '1',
          url: 'https://news.example/b',
          title: 'Ransomware attack hits hospitals',
          date_published: '2026-01-02T00:00:00Z',
        },
      ],
    });
    expect(parse('rss', json, community)[0]).toMatchObject({
      threat_layer: 'cyber',
      source_url: 'https://news.example/b',
    });
  });

  it('refuses malformed documents', () => {
    expect(() => parse('rss', '<rss><channel><item></rss>', community)).toThrow(ConnectorError);
    expect(() => parse('rss', '{"items": []}', community)).toThrow(ConnectorError);
    expect(() => parse('rss', '<html><body>hi</body></html>', community)).toThrow(ConnectorError);
  });
});

describe('gdelt connector', () => {
  it('reads ArtList articles: identity without fragment, punctuation closed up, language by name', () => {
    const items = parse('gdelt', gdeltDoc, context('discovered'));
    const peru = 'gdelt:https://news.example.com/world/test-quake-peru';
    // one article seen twice (with and without a fragment): one identity
    expect(items.filter((i) => i.external_ids.includes(peru))).toHaveLength(2);
    expect(byId(items, peru)).toMatchObject({
      // GDELT's padded punctuation ("Peru , rescuers") is closed up
      title: 'Earthquake kills 30 people in Peru, rescuers search rubble',
      content_display:
        'Earthquake kills 30 people in Peru, rescuers search rubble\n\nReported by news.example.com.',
      language: 'en',
      published_at: '2026-01-21T08:30:00.000Z',
      source_url: 'https://news.example.com/world/test-quake-peru',
    });
    const cyber = items.find((i) => i.source_url === 'https://daily.example.org/tech/test-ransomware');
    if (cyber) expect(cyber.title).toBe('Ransomware attack & data breach hit hospital network');
    const german = items.find((i) => i.source_url === 'https://zeitung.example.de/welt/test');
    if (german) expect(german).toMatchObject({ language: 'de', title: 'Erdbeben in Peru: Dutzende Tote' });
    // an article without a usable URL is skipped
    expect(items.every((i) => i.source_url.startsWith('https://'))).toBe(true);
  });

  it('builds one query per topic from the source options', () => {
    const gdelt = connectorFor('gdelt')!;
    const url = new URL(
      gdelt.requestUrl!(
        {
          name: 'g',
          url: 'https://api.gdeltproject.org/api/v2/doc/doc',
          tier: 'discovered',
          options: { query: 'ransomware' },
        },
        new Date(),
      ),
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      query: 'ransomware',
      mode: 'artlist',
      format: 'json',
      sort: 'datedesc',
      timespan: '1h',
      maxrecords: '75',
    });
    expect(() =>
      gdelt.requestUrl!(
        { name: 'g', url: 'https://api.gdeltproject.org/x', tier: 'discovered', options: {} },
        new Date(),
      ),
    ).toThrow(ConnectorError);
  });

  it('treats an empty answer as no items and a rate-limit text as malformed', () => {
    expect(parse('gdelt', '{}')).toEqual([]);
    expect(() => parse('gdelt', 'Please limit requests to one every 5 seconds')).toThrow(ConnectorError);
    expect(() => parse('gdelt', '{"articles": {}}')).toThrow(ConnectorError);
  });
});
