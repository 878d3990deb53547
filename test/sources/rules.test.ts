import { describe, expect, it } from 'vitest';
import {
  countriesInText,
  countryAt,
  countryByName,
  countryInPlace,
  countryOfEvent,
  iso3to2,
  townInPlace,
} from '../../src/sources/geo';
import { revisionOf, revisionValence } from '../../src/sources/revision';
import type { SourceItem } from '../../src/sources/types';

describe('country rules', () => {
  it('reads feed names, ISO3 codes and points (territory level)', () => {
    expect(countryByName('Islamic Republic of Iran')).toBe('IR');
    expect(countryByName('Türkiye')).toBe('TR');
    expect(countryByName('Atlantis')).toBeNull();
    expect(iso3to2('cod')).toBe('CD');
    expect(iso3to2('wld')).toBeNull();
    expect(countryAt(18.2, -66)).toBe('PR');
    expect(countryAt(0, -140)).toBeNull();
  });

  it('skips ambiguous names in free text', () => {
    expect(countriesInText('Jordan Henderson and Chad Smith met in Georgia')).toEqual([]);
    expect(countriesInText('Floods hit Nigeria and Niger Delta towns')).toEqual(['NG']);
  });

  it('reads USGS place strings', () => {
    expect(countryInPlace('35 km NNW of Herāt, Afghanistan')).toBe('AF');
    expect(countryInPlace('Port Townsend, WA')).toBe('US');
    expect(countryInPlace('4 km NNW of Anchorage, Alaska')).toBe('US');
    expect(countryInPlace('western Afghanistan')).toBe('AF');
    expect(countryInPlace('Poland-Slovakia border region')).toBeNull();
    expect(countryInPlace('southeast of the Loyalty Islands')).toBeNull();
    expect(townInPlace('35 km NNW of Herāt, Afghanistan')).toBe('Herāt');
    expect(townInPlace('western Afghanistan')).toBeNull();
  });

  it('never invents a country for an offshore event without a named one', () => {
    expect(countryOfEvent(0, -140, 'central East Pacific Rise')).toEqual([]);
    expect(countryOfEvent(null, null, 'southeast of the Loyalty Islands')).toEqual([]);
    // country-coder's borders include near-shore waters: the Loyalty Islands are New Caledonia
    expect(countryOfEvent(-22, 170.5, 'southeast of the Loyalty Islands')).toEqual(['NC']);
    expect(countryOfEvent(5.3416, 126.0595, '66 km E of Sarangani, Philippines')).toEqual(['PH']);
  });
});

describe('revisions', () => {
  const base: SourceItem = {
    threat_layer: 'disaster',
    significance_score: 6,
    signal_valence: 'crisis',
    title: 'M 5.9',
    content_display: 'M 5.9',
    country_codes: ['AF'],
    published_at: '2023-10-07T07:40:29.417Z',
    source_url: 'https://earthquake.usgs.gov/x',
    external_ids: ['usgs:x'],
    upstream_updated_at: '2023-10-08T07:47:17.831Z',
  };

  it('judges newer, older, changed and withdrawn copies', () => {
    expect(revisionOf(base, base)).toBe('same');
    expect(revisionOf(base, { ...base, upstream_updated_at: '2023-10-09T00:00:00Z' })).toBe('revised');
    expect(
      revisionOf(base, { ...base, upstream_updated_at: '2023-10-01T00:00:00Z', significance_score: 7 }),
    ).toBe('same');
    const noTime = { ...base, upstream_updated_at: undefined };
    expect(revisionOf(noTime, { ...noTime, significance_score: 7 })).toBe('revised');
    expect(revisionOf(base, { ...base, retracted: true })).toBe('retracted');
    expect(revisionOf({ ...base, retracted: true }, { ...base, retracted: true })).toBe('same');
  });

  it('stores a revision as update unless upstream says it ended', () => {
    expect(revisionValence(base)).toBe('update');
    expect(revisionValence({ ...base, signal_valence: 'resolution' })).toBe('resolution');
  });
});
