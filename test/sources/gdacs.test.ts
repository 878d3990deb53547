import { describe, expect, it } from 'vitest';
import { gdacsCountries, gdacsEnded } from '../../src/sources/gdacs';
import { ConnectorError } from '../../src/sources/types';
import { byId, fixture, parse } from './support';

const doc = fixture('gdacs-rss-7d.xml');

describe('gdacs connector', () => {
  it('reads the recorded feed with its BOM, CRLF and trailing comment', () => {
    expect(parse('gdacs', doc)).toHaveLength(32);
  });

  it('maps an offshore green earthquake to the country its list names', () => {
    expect(byId(parse('gdacs', doc), 'gdacs:EQ1347961')).toMatchObject({
      threat_layer: 'disaster',
      // Green 3 + (4.9 − 5) × 0.5 clamped to 0
      significance_score: 3,
      signal_valence: 'update',
      country_codes: ['JP'],
      lat: 32.3345,
      lng: 142.4756,
      published_at: '2022-11-26T20:39:04.000Z',
      upstream_updated_at: '2022-11-26T20:39:04.000Z',
      source_url: 'https://www.gdacs.org/report.aspx?eventtype=EQ&eventid=1347961',
      external_ids: ['gdacs:EQ1347961'],
    });
  });

  it('lists every affected country of a multi-country event, not only gdacs:iso3', () => {
    const item = byId(parse('gdacs', doc), 'gdacs:DR1015771');
    expect(item.country_codes).toEqual(['BD', 'CN', 'IN', 'MM']);
    const iran = byId(parse('gdacs', doc), 'gdacs:DR1015257');
    // "Georgia" in GDACS's own country list is the country; "Islamic Republic of Iran" is IR.
    expect(iran.country_codes).toEqual(['AM', 'AZ', 'GE', 'IR', 'TM', 'TR']);
  });

  it('scores an orange drought above the crisis line and keeps an ongoing one open', () => {
    const item = byId(parse('gdacs', doc), 'gdacs:DR1015469');
    expect(item).toMatchObject({ significance_score: 6, signal_valence: 'crisis' });
    expect(item.country_codes).toHaveLength(9);
  });

  it('falls back to the point for a region name, and to none offshore', () => {
    expect(byId(parse('gdacs', doc), 'gdacs:EQ1347956').country_codes).toEqual(['RU']);
    expect(gdacsCountries('Central East Pacific Rise', '', 0, -140)).toEqual([]);
  });

  it('treats a no-longer-current event as ended only three days after its last episode', () => {
    expect(gdacsEnded('false', '2022-11-26T00:00:00.000Z', '2022-11-26T21:27:03.000Z')).toBe(false);
    expect(gdacsEnded('false', '2022-11-20T00:00:00.000Z', '2022-11-26T21:27:03.000Z')).toBe(true);
    expect(gdacsEnded('true', '2022-11-01T00:00:00.000Z', '2022-11-26T21:27:03.000Z')).toBe(false);
    const ended = doc.replace(
      /(<gdacs:iscurrent>)true(<\/gdacs:iscurrent>[\s\S]*?<gdacs:todate>)[^<]*/,
      '$1false$2Sat, 19 Nov 2022 20:00:19 GMT',
    );
    expect(byId(parse('gdacs', ended), 'gdacs:EQ1347961').signal_valence).toBe('resolution');
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
