import { describe, expect, it } from 'vitest';
import { gdacsCountries, gdacsEnded } from '../../src/sources/gdacs';
import { ConnectorError } from '../../src/sources/types';
import { byId, fixture, parse } from './support';

const doc = fixture('gdacs.xml');

describe('gdacs connector', () => {
  it('reads a feed with a BOM, CRLF line ends and a comment after the root element', () => {
    expect(doc.charCodeAt(0)).toBe(0xfeff);
    expect(doc).toContain('\r\n');
    expect(doc.trimEnd().endsWith('-->')).toBe(true);
    expect(parse('gdacs', doc)).toHaveLength(5);
  });

  it('maps an offshore green earthquake to the country its list names', () => {
    expect(byId(parse('gdacs', doc), 'gdacs:EQ9000001')).toMatchObject({
      threat_layer: 'disaster',
      // Green 3 + (4.9 − 5) × 0.5 clamped to 0
      significance_score: 3,
      signal_valence: 'update',
      country_codes: ['JP'],
      lat: 33.1,
      lng: 143.2,
      published_at: '2025-11-20T08:30:00.000Z',
      upstream_updated_at: '2025-11-20T09:00:00.000Z',
      source_url: 'https://www.gdacs.org/report.aspx?eventtype=EQ&eventid=9000001',
      external_ids: ['gdacs:EQ9000001'],
    });
  });

  it('scores by alert level and magnitude or wind, with markup stripped from the title', () => {
    expect(byId(parse('gdacs', doc), 'gdacs:EQ9000002')).toMatchObject({
      // Orange 6 + (6.4 − 5) × 0.5 = 6.7
      significance_score: 6.7,
      signal_valence: 'crisis',
      title:
        'Orange earthquake alert (Magnitude 6.4M, Depth:10km) in Test Province, Iran 19/11/2025 03:00 UTC, 1.2 million people within 100km.',
      country_codes: ['IR'],
    });
    expect(byId(parse('gdacs', doc), 'gdacs:EQ9000002').content_display).toContain(
      'A test earthquake & aftershocks.',
    );
    // Red 8.5 + (209 − 119) × 0.01 = 9.4
    expect(byId(parse('gdacs', doc), 'gdacs:TC9000004').significance_score).toBe(9.4);
  });

  it('lists every affected country of a multi-country event, not only gdacs:iso3', () => {
    const item = byId(parse('gdacs', doc), 'gdacs:DR9000003');
    // "Georgia" in GDACS's own country list is the country; "Islamic Republic of Iran" is IR.
    expect(item.country_codes).toEqual(['AM', 'AZ', 'GE', 'IR', 'TR']);
    // an orange drought: above the crisis line
    expect(item).toMatchObject({ significance_score: 6, signal_valence: 'crisis' });
  });

  it('falls back to the point for a region name, and to none offshore', () => {
    expect(gdacsCountries('Test Region', '', 55.0, 160.0)).toEqual(['RU']);
    expect(byId(parse('gdacs', doc), 'gdacs:EQ9000005').country_codes).toEqual([]);
    expect(gdacsCountries('Central East Pacific Rise', '', 0, -140)).toEqual([]);
  });

  it('treats a no-longer-current event as ended only three days after its last episode', () => {
    // EQ9000005: not current, its last episode ten days before the document: ended.
    expect(byId(parse('gdacs', doc), 'gdacs:EQ9000005').signal_valence).toBe('resolution');
    expect(gdacsEnded('false', '2022-11-26T00:00:00.000Z', '2022-11-26T21:27:03.000Z')).toBe(false);
    expect(gdacsEnded('false', '2022-11-20T00:00:00.000Z', '2022-11-26T21:27:03.000Z')).toBe(true);
    expect(gdacsEnded('true', '2022-11-01T00:00:00.000Z', '2022-11-26T21:27:03.000Z')).toBe(false);
    const ended = doc.replace(
      /(<gdacs:iscurrent>)true(<\/gdacs:iscurrent>[\s\S]*?<gdacs:todate>)[^<]*/,
      '$1false$2Sat, 15 Nov 2025 20:00:19 GMT',
    );
    expect(byId(parse('gdacs', ended), 'gdacs:EQ9000001').signal_valence).toBe('resolution');
  });

  it('refuses malformed XML and documents that are not GDACS RSS', () => {
    expect(() => parse('gdacs', '<rss><channel><item></channel></rss>')).toThrow(ConnectorError);
    expect(() => parse('gdacs', '{"type":"FeatureCollection"}')).toThrow(ConnectorError);
    expect(() => parse('gdacs', '<feed></feed>')).toThrow(ConnectorError);
  });

  it('expands no custom entities', () => {
    const doc2 = `<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY x "EXPANDED">]><rss><channel><item><guid>EQ1</guid><title>&x; &amp; more</title><link>https://www.gdacs.org/r?a=1</link><pubDate>Sat, 26 Nov 2022 20:39:04 GMT</pubDate></item></channel></rss>`;
    const [item] = parse('gdacs', doc2);
    expect(item?.title).toBe('&x; & more');
  });
});
