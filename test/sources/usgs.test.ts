import { describe, expect, it } from 'vitest';
import { ConnectorError } from '../../src/sources/types';
import { usgsIds } from '../../src/sources/usgs';
import { revisionOf } from '../../src/sources/revision';
import { byId, context, fixture, parse } from './support';

const doc = fixture('usgs-significant-month.geojson');

/** The fixture with one feature's properties edited, as a later poll of the feed would serve it. */
function edited(id: string, change: (properties: Record<string, unknown>) => void): string {
  const root = JSON.parse(doc) as { features: { id: string; properties: Record<string, unknown> }[] };
  const feature = root.features.find((f) => f.id === id)!;
  change(feature.properties);
  return JSON.stringify(root);
}

describe('usgs connector', () => {
  it('maps every feature of the recorded feed', () => {
    expect(parse('usgs', doc)).toHaveLength(18);
  });

  it('maps the M6.3 Herat quake: red PAGER, Afghanistan from the coordinates', () => {
    const item = byId(parse('usgs', doc), 'usgs:us6000len8');
    expect(item).toMatchObject({
      threat_layer: 'disaster',
      // max(6.3 − 1, red 9) + 0.5 (sig 2029 ≥ 1000) = 9.5
      significance_score: 9.5,
      signal_valence: 'crisis',
      title: 'M 6.3 - western Afghanistan',
      country_codes: ['AF'],
      lat: 34.5565,
      lng: 62.0449,
      language: 'en',
      published_at: '2023-10-11T00:41:56.160Z',
      upstream_updated_at: '2023-10-11T19:57:32.893Z',
      source_url: 'https://earthquake.usgs.gov/earthquakes/eventpage/us6000len8',
      external_ids: ['usgs:us6000len8'],
    });
    expect(item.city).toBeUndefined();
    expect(item.retracted).toBeUndefined();
  });

  it('keeps every network id of a merged event and the town of the place', () => {
    const item = byId(parse('usgs', doc), 'usgs:us6000le56');
    expect(item).toMatchObject({
      // max(4.32 − 1, green 0) + 0.5 tsunami = 3.82 → 3.8, below 4: an update
      significance_score: 3.8,
      signal_valence: 'update',
      country_codes: ['US'],
      city: 'Port Townsend',
      external_ids: ['usgs:uw61965081', 'usgs:ew1696818070', 'usgs:at00s28p79', 'usgs:us6000le56'],
    });
  });

  it('takes an offshore event’s country from the place text, not country-coder’s sea border', () => {
    // 66 km E of Sarangani at sea: country-coder alone says Indonesia.
    expect(byId(parse('usgs', doc), 'usgs:us6000lcri').country_codes).toEqual(['PH']);
    expect(byId(parse('usgs', doc), 'usgs:us6000lec2').country_codes).toEqual(['SK']);
  });

  it('lowers the score by the source tier', () => {
    const item = byId(parse('usgs', doc, context('community')), 'usgs:us6000len8');
    expect(item.significance_score).toBe(9);
  });

  it('reports a revision when the feed updates the magnitude and time', () => {
    const first = byId(parse('usgs', doc), 'usgs:us6000ldpv');
    const revised = byId(
      parse(
        'usgs',
        edited('us6000ldpv', (p) => {
          p.mag = 6.1;
          p.updated = 1696800000000;
        }),
      ),
      'usgs:us6000ldpv',
    );
    expect(revised.upstream_updated_at).toBe('2023-10-08T21:20:00.000Z');
    // yellow floor 6 vs 6.1 − 1: still 6; the newer update time makes it a revision
    expect(revised.significance_score).toBe(6);
    expect(revisionOf(first, revised)).toBe('revised');
    expect(revisionOf(first, first)).toBe('same');
  });

  it('retracts an event the feed marks deleted', () => {
    const deleted = byId(
      parse(
        'usgs',
        edited('us6000ldpv', (p) => {
          p.status = 'deleted';
          p.updated = 1696900000000;
        }),
      ),
      'usgs:us6000ldpv',
    );
    expect(deleted.retracted).toBe(true);
    const stripped = byId(
      parse(
        'usgs',
        edited('us6000ldpv', (p) => {
          p.status = 'deleted';
          delete p.url;
        }),
      ),
      'usgs:us6000ldpv',
    );
    expect(stripped).toMatchObject({
      retracted: true,
      source_url: 'https://earthquake.usgs.gov/earthquakes/eventpage/us6000ldpv',
    });
    expect(revisionOf(byId(parse('usgs', doc), 'usgs:us6000ldpv'), deleted)).toBe('retracted');
  });

  it('splits the ids list with its leading and trailing commas', () => {
    expect(usgsIds('a1', ',b2,a1,c3,')).toEqual(['usgs:a1', 'usgs:b2', 'usgs:c3']);
  });

  it('refuses a malformed document', () => {
    expect(() => parse('usgs', '{"type":"FeatureCollection"')).toThrow(ConnectorError);
    expect(() => parse('usgs', '{"type":"Feature"}')).toThrow(ConnectorError);
    expect(() => parse('usgs', '{"type":"FeatureCollection","features":{}}')).toThrow(ConnectorError);
  });
});
