import { describe, expect, it } from 'vitest';
import { nwsCountries } from '../../src/sources/nws';
import { ConnectorError } from '../../src/sources/types';
import { context, fixture, parse } from './support';

const doc = fixture('nws.geojson');
const whileActive = context('core', {}, new Date('2026-08-10T00:00:00Z'));

describe('nws connector', () => {
  it('maps the heat advisory: CAP severity, urgency and certainty give the score', () => {
    const [item] = parse('nws', doc, whileActive);
    expect(item).toMatchObject({
      threat_layer: 'disaster',
      // Moderate 4 + Expected 0.5 + Likely 0
      significance_score: 4.5,
      signal_valence: 'crisis',
      title: 'Heat Advisory issued August 9 at 2:24PM EDT until August 10 at 7:00PM EDT by NWS Test Office',
      country_codes: ['US'],
      language: 'en',
      published_at: '2026-08-09T18:24:00.000Z',
      upstream_updated_at: '2026-08-09T18:24:00.000Z',
      source_url:
        'https://api.weather.gov/alerts/urn:oid:2.49.0.1.840.0.test0000000000000000000000000000000001.001.1',
      // its own id and the alert it extends (parameters.expiredReferences)
      external_ids: [
        'nws:urn:oid:2.49.0.1.840.0.test0000000000000000000000000000000001.001.1',
        'nws:urn:oid:2.49.0.1.840.0.test0000000000000000000000000000000000.001.1',
      ],
    });
    // geometry is null in the feed: no invented coordinates
    expect(item?.lat).toBeUndefined();
  });

  it('is a resolution once expired, or when cancelled', () => {
    expect(parse('nws', doc, context('core', {}, new Date('2026-08-11T00:00:00Z')))[0]?.signal_valence).toBe(
      'resolution',
    );
    const cancelled = doc.replace('"messageType": "Alert"', '"messageType": "Cancel"');
    expect(parse('nws', cancelled, whileActive)[0]?.signal_valence).toBe('resolution');
  });

  it('drops test and exercise messages', () => {
    expect(parse('nws', doc.replace('"status": "Actual"', '"status": "Test"'), whileActive)).toEqual([]);
  });

  it('uses the territory code of the UGC zones', () => {
    expect(nwsCountries(['PRZ001', 'PRZ002'])).toEqual(['PR']);
    expect(nwsCountries(['NYZ072', 'GUZ001'])).toEqual(['US', 'GU']);
  });

  it('refuses a malformed document', () => {
    expect(() => parse('nws', '{"type":"FeatureCollection","features":null}')).toThrow(ConnectorError);
    expect(() => parse('nws', '[')).toThrow(ConnectorError);
  });
});
