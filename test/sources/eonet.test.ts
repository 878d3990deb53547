import { describe, expect, it } from 'vitest';
import { ConnectorError } from '../../src/sources/types';
import { byId, fixture, parse } from './support';

const doc = fixture('eonet.json');

describe('eonet connector', () => {
  it('maps a typhoon at sea: wind raises the score, no country from a sea point', () => {
    expect(byId(parse('eonet', doc), 'eonet:EONET_90001')).toMatchObject({
      threat_layer: 'disaster',
      // severeStorms 5 + (95 − 34) / 30 = 7.03 → 7
      significance_score: 7,
      signal_valence: 'crisis',
      title: 'Typhoon Testwind',
      country_codes: [],
      lat: 13.3,
      lng: 128.1,
      published_at: '2025-11-06T00:00:00.000Z',
      upstream_updated_at: '2025-11-08T12:00:00.000Z',
      source_url: 'https://eonet.gsfc.nasa.gov/api/v3/events/EONET_90001',
      external_ids: ['eonet:EONET_90001'],
    });
  });

  it('maps a wildfire on land to its country from the coordinates', () => {
    expect(byId(parse('eonet', doc), 'eonet:EONET_90002')).toMatchObject({
      // wildfires 3 + log10(2547) − 3 = 3.41 → 3.4
      significance_score: 3.4,
      signal_valence: 'update',
      country_codes: ['US'],
      lat: 31.15025,
      lng: -89.13245,
    });
    expect(byId(parse('eonet', doc), 'eonet:EONET_90002').content_display).toContain('A test wildfire.');
    // sea ice: category 1, and no country from a point at sea
    expect(byId(parse('eonet', doc), 'eonet:EONET_90003')).toMatchObject({
      significance_score: 1,
      country_codes: [],
    });
  });

  it('turns a closed event into a resolution', () => {
    const root = JSON.parse(doc) as { events: Record<string, unknown>[] };
    root.events[1]!.closed = '2025-11-04T00:00:00Z';
    const item = byId(parse('eonet', JSON.stringify(root)), 'eonet:EONET_90002');
    expect(item.signal_valence).toBe('resolution');
    expect(item.upstream_updated_at).toBe('2025-11-04T00:00:00.000Z');
  });

  it('refuses a malformed document', () => {
    expect(() => parse('eonet', '{"events": 3}')).toThrow(ConnectorError);
    expect(() => parse('eonet', 'not json')).toThrow(ConnectorError);
  });
});
