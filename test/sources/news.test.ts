import { describe, expect, it } from 'vitest';
import { canonicalLink } from '../../src/sources/rss';
import { connectorFor } from '../../src/sources/registry';
import { ConnectorError } from '../../src/sources/types';
import { byId, context, fixture, parse } from './support';

const bbc = fixture('bbc-world-rss.xml');
const gdeltDoc = fixture('gdelt-doc-artlist.json');
const community = context('community');

describe('rss connector', () => {
  it('keeps news events, drops shells, explainers and what matches no layer', () => {
    const items = parse('rss', bbc, community);
    const titles = items.map((i) => i.title ?? '');
    // "First celestial image unveiled from revolutionary telescope": no layer
    expect(titles.some((t) => t.includes('telescope'))).toBe(false);
    // video shells, explainers and hedged previews are not events
    expect(titles.filter((t) => /^Watch:|^How |^What we know|could be the most/.test(t))).toEqual([]);
    expect(items.every((i) => !i.source_url.includes('/videos/'))).toBe(true);
    const kyiv = byId(items, 'rss:https://www.bbc.com/news/articles/c0k7vll16l3o');
    expect(kyiv).toMatchObject({
      threat_layer: 'military',
      signal_valence: 'crisis',
      title: 'Nine killed in Kyiv in intense Russian air attack',
      language: 'en-gb',
      source_url: 'https://www.bbc.com/news/articles/c0k7vll16l3o',
    });
    // where it happened comes first (the attacker may follow)
    expect(kyiv.country_codes?.[0]).toBe('UA');
    expect(kyiv.published_at).toMatch(/^2025-06-2\dT/);
    // severity from facts: 25 dead in a suicide bombing outranks one shot dead at a wedding
    const damascus = items.find((i) => i.title?.startsWith('Suicide bombing at Damascus'));
    const bride = items.find((i) => i.title?.startsWith('Bride shot dead'));
    expect(damascus).toMatchObject({ threat_layer: 'criminal', country_codes: ['SY'] });
    expect(bride).toMatchObject({ threat_layer: 'criminal', country_codes: ['FR'] });
    expect(damascus!.significance_score).toBeGreaterThan(bride!.significance_score + 2);
  });

  it('gives the same identity to guids that differ only by fragment', () => {
    expect(canonicalLink('https://www.bbc.com/news/articles/x#2')).toBe(
      canonicalLink('https://www.bbc.com/news/articles/x#0'),
    );
    const moved = bbc.replace(/#0<\/guid>/g, '#3</guid>');
    expect(parse('rss', moved, community).map((i) => i.external_ids)).toEqual(
      parse('rss', bbc, community).map((i) => i.external_ids),
    );
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
  it('reads languages without rules only when layer, event kind and country are plain', () => {
    const items = parse('gdelt', gdeltDoc, context('discovered'));
    // the Malayalam-tagged item with an English headline on tariffs (a kind) naming India and Iran
    expect(items).toHaveLength(1);
    expect(items[0]?.country_codes).toEqual(expect.arrayContaining(['IN', 'IR']));
    expect(items[0]).toMatchObject({
      threat_layer: 'economic',
      language: 'ml',
      published_at: '2026-01-16T17:00:00.000Z',
    });
    // GDELT's padded punctuation ("Chabahar Port : India") is closed up
    expect(items[0]?.title).toMatch(/^Chabahar Port: India Concern Over Trump Tariffs And Iran Protest \| /);
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
