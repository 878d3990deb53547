import { describe, expect, it } from 'vitest';
import { ConnectorError } from '../../src/sources/types';
import { usgsIds } from '../../src/sources/usgs';
import { revisionOf } from '../../src/sources/revision';
import { byId, context, fixture, parse } from './support';

const doc = fixture('usgs.geojson');

/** The fixture with one feature's properties edited, as a later poll of the feed would serve it. */
function edited(id: string, change: (properties: Record<string, unknown>) => void): string {
  const root = JSON.parse(doc) as { features: { id: string; properties: Record<string, unknown> }[] };
  const feature = root.features.find((f) => f.id === id)!;
  change(feature.properties);
  return JSON.stringify(root);
}

describe('usgs connector', () => {
  it('maps every feature of the feed', () => {
    expect(parse('usgs', doc)).toHaveLength(6);
  });

  it('maps a red-PAGER quake: score floor, sig bonus, country from the coordinates, town of the place', () => {
    const item = byId(parse('usgs', doc), 'usgs:us7000tst1');
    expect(item).toMatchObject({
      threat_layer: 'disaster',
      // max(6.4 − 1, red 9) + 0.5 (sig 2100 ≥ 1000) = 9.5
      significance_score: 9.5,
      signal_valence: 'crisis',
      title: 'M 6.4 - 40 km S of Test Valley, Afghanistan',
      country_codes: ['AF'],
      city: 'Test Valley',
      lat: 33.5,
      lng: 65.5,
      language: 'en',
      published_at: '2025-11-13T02:13:20.000Z',
      upstream_updated_at: '2025-11-13T03:13:20.000Z',
      source_url: 'https://earthquake.usgs.gov/earthquakes/eventpage/us7000tst1',
      external_ids: ['usgs:us7000tst1'],
    });
    expect(item.retracted).toBeUndefined();
  });

  it('keeps every network id of a merged event; a tsunami flag adds half a point', () => {
    const item = byId(parse('usgs', doc), 'usgs:us7000tst2');
    expect(item).toMatchObject({
      // max(4.3 − 1, green 0) + 0.5 tsunami = 3.8, below 4: an update
      significance_score: 3.8,
      signal_valence: 'update',
      // "…, Washington": a US state in the place text
      country_codes: ['US'],
      city: 'Port Angeles',
      external_ids: ['usgs:us7000tst2', 'usgs:uw70000tst', 'usgs:at0000tst2'],
    });
    // the yellow PAGER floor: max(5.6 − 1, 6)
    expect(byId(parse('usgs', doc), 'usgs:us7000tst5').significance_score).toBe(6);
  });

  it('takes an offshore event’s country from the place text, not country-coder’s sea border', () => {
    // At sea between Mindanao and Indonesia; the place text ends with the Philippines.
    expect(byId(parse('usgs', doc), 'usgs:us7000tst3').country_codes).toEqual(['PH']);
    // A place naming two countries decides nothing: the point (in Slovakia) does.
    expect(byId(parse('usgs', doc), 'usgs:us7000tst4').country_codes).toEqual(['SK']);
    // Far at sea, no country in the text: no country, never a guess.
    expect(byId(parse('usgs', doc), 'usgs:us7000tst6').country_codes).toEqual([]);
  });

  it('lowers the score by the source tier', () => {
    const item = byId(parse('usgs', doc, context('community')), 'usgs:us7000tst1');
    expect(item.significance_score).toBe(9);
  });

  it('reports a revision when the feed updates the magnitude and time', () => {
    const first = byId(parse('usgs', doc), 'usgs:us7000tst5');
    const revised = byId(
      parse(
        'usgs',
        edited('us7000tst5', (p) => {
          p.mag = 6.1;
          p.updated = 1763000000000;
        }),
      ),
      'usgs:us7000tst5',
    );
    expect(revised.upstream_updated_at).toBe('2025-11-13T02:13:20.000Z');
    // yellow floor 6 vs 6.1 − 1: still 6; the newer update time makes it a revision
    expect(revised.significance_score).toBe(6);
    expect(revisionOf(first, revised)).toBe('revised');
    expect(revisionOf(first, first)).toBe('same');
  });

  it('retracts an event the feed marks deleted', () => {
    const deleted = byId(
      parse(
        'usgs',
        edited('us7000tst5', (p) => {
          p.status = 'deleted';
          p.updated = 1763100000000;
        }),
      ),
      'usgs:us7000tst5',
    );
    expect(deleted.retracted).toBe(true);
    const stripped = byId(
      parse(
        'usgs',
        edited('us7000tst5', (p) => {
          p.status = 'deleted';
          delete p.url;
        }),
      ),
      'usgs:us7000tst5',
    );
    expect(stripped).toMatchObject({
      retracted: true,
      source_url: 'https://earthquake.usgs.gov/earthquakes/eventpage/us7000tst5',
    });
    expect(revisionOf(byId(parse('usgs', doc), 'usgs:us7000tst5'), deleted)).toBe('retracted');
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
