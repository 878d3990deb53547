import { describe, expect, it } from 'vitest';
import { connectorFor } from '../../src/sources/registry';
import { reliefwebCountries, reliefwebLayer } from '../../src/sources/reliefweb';
import { ConnectorError } from '../../src/sources/types';
import { byId, fixture, parse } from './support';

const relief = fixture('reliefweb.json');
// WRITTEN FROM WHO's published API description (OData `value[]` with DonId, Title, UrlName,
// ItemDefaultUrl, PublicationDate, LastModified, Summary): no real response was recorded.
const don = fixture('who-don.json');

describe('reliefweb connector', () => {
  it('layers by disaster type, then keywords, and drops unlabelled reports that match no rule', () => {
    const items = parse('reliefweb', relief);
    expect(byId(items, 'reliefweb:9100001')).toMatchObject({
      threat_layer: 'disaster',
      significance_score: 3.5,
      signal_valence: 'update',
      title: 'Nepal: Test Valley Floods - Flash Update No. 1',
      country_codes: ['NP'],
      language: 'en',
      published_at: '2026-10-02T13:50:22.000Z',
      upstream_updated_at: '2026-10-03T08:00:00.000Z',
      source_url: 'https://reliefweb.int/node/9100001',
      external_ids: ['reliefweb:9100001'],
    });
    // EP (epidemic) is health; the country list is ISO3, deduplicated
    expect(byId(items, 'reliefweb:9100002')).toMatchObject({
      threat_layer: 'health',
      country_codes: ['CD', 'RW'],
    });
    // a theme layers it; "wld" (World) is no country; the body's markup is stripped
    const world = byId(items, 'reliefweb:9100003');
    expect(world).toMatchObject({ threat_layer: 'political', country_codes: [] });
    expect(world.content_display).toContain('A test report & its annex.');
    // An Education-themed brief: no disaster type, no layer theme, no keyword (layer left to the rules)
    expect(items.some((i) => i.external_ids.includes('reliefweb:9100004'))).toBe(false);
    // A centroid is not a site: no coordinates
    expect(items.every((i) => i.lat === undefined)).toBe(true);
  });

  it('maps labels and ISO3 codes', () => {
    expect(reliefwebLayer([{ code: 'EP', name: 'Epidemic' }], [])).toBe('health');
    expect(reliefwebLayer([{ code: 'FL', name: 'Flood' }], [{ name: 'Health' }])).toBe('disaster');
    expect(reliefwebLayer([], [{ name: 'Protection and Human Rights' }])).toBe('political');
    expect(reliefwebLayer([], [{ name: 'Education' }])).toBeNull();
    expect(
      reliefwebCountries({ primary_country: { iso3: 'cod' }, country: [{ iso3: 'rwa' }, { iso3: 'cod' }] }),
    ).toEqual(['CD', 'RW']);
    expect(reliefwebCountries({ primary_country: { iso3: 'wld' } })).toEqual([]);
  });

  it('needs an appname to build its request', () => {
    const rw = connectorFor('reliefweb')!;
    const source = {
      name: 'rw',
      url: 'https://api.reliefweb.int/v2/reports',
      tier: 'core' as const,
      options: {},
    };
    expect(() => rw.requestUrl!(source, new Date())).toThrow(ConnectorError);
    const url = new URL(rw.requestUrl!({ ...source, options: { appname: 'acme-signals' } }, new Date()));
    expect(url.searchParams.get('appname')).toBe('acme-signals');
    expect(url.searchParams.getAll('fields[include][]')).toContain('disaster_type');
  });

  it('refuses a malformed document', () => {
    expect(() => parse('reliefweb', '{"data": {}}')).toThrow(ConnectorError);
    expect(() => parse('reliefweb', '{"totalCount": 1')).toThrow(ConnectorError);
  });
});

describe('who-don connector (fixture written from the API documentation)', () => {
  it('maps outbreak news to health signals with the countries of the title', () => {
    const items = parse('who-don', don);
    expect(items).toHaveLength(3);
    expect(byId(items, 'who-don:2026-DON601')).toMatchObject({
      threat_layer: 'health',
      // high-consequence pathogen (Marburg)
      significance_score: 7.5,
      signal_valence: 'crisis',
      title: 'Marburg virus disease – United Republic of Tanzania',
      country_codes: ['TZ'],
      published_at: '2026-10-20T15:30:00.000Z',
      upstream_updated_at: '2026-10-21T08:00:00.000Z',
      source_url: 'https://www.who.int/emergencies/disease-outbreak-news/item/2026-DON601',
    });
    expect(byId(items, 'who-don:2026-DON600')).toMatchObject({ significance_score: 6, country_codes: [] });
    // A country list in WHO's own title names Chad the country
    expect(byId(items, 'who-don:2026-DON599').country_codes).toEqual(['SD', 'TD']);
  });

  it('refuses a malformed document', () => {
    expect(() => parse('who-don', '{"value": null}')).toThrow(ConnectorError);
    expect(() => parse('who-don', '<html>')).toThrow(ConnectorError);
  });
});
