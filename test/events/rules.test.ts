import { describe, expect, it } from 'vitest';
import { publisherFamily } from '../../src/events/keys';
import { layersLink } from '../../src/events/match';
import { CORROBORATION, corroboratedScore, corroborationTerm } from '../../src/events/rules';
import { LAYERS } from '../../src/vocab';

describe('the corroboration term', () => {
  it('never raises a signal its source alone reports', () => {
    expect(corroborationTerm(1)).toBe(0);
    expect(corroborationTerm(0)).toBe(0);
    expect(corroboratedScore(7.123, 1)).toBe(7.123);
  });

  it('adds a quarter point per further publisher, reaching its cap of one point at five', () => {
    expect([2, 3, 4, 5].map(corroborationTerm)).toEqual([0.25, 0.5, 0.75, 1]);
    expect(corroborationTerm(5)).toBe(CORROBORATION.max);
    expect(corroborationTerm(50)).toBe(1);
    expect(corroborationTerm(Number.POSITIVE_INFINITY)).toBe(0);
  });

  it('keeps scores within 10, to two decimals', () => {
    expect(corroboratedScore(9.6, 5)).toBe(10);
    expect(corroboratedScore(6.4, 3)).toBe(6.9);
    expect(corroboratedScore(6.333, 2)).toBe(6.58);
  });
});

describe('publisher families', () => {
  it('counts outlets of one owner once, by name or by the domain of the link', () => {
    expect(publisherFamily('BBC World', 'https://www.bbc.com/news/world-1')).toBe('bbc');
    expect(publisherFamily('BBC Africa', 'https://www.bbc.co.uk/news/africa-2')).toBe('bbc');
    expect(publisherFamily('Some BBC mirror', 'https://feeds.bbci.co.uk/news/3')).toBe('bbc');
    expect(publisherFamily('France 24', 'https://www.france24.com/fr/a')).toBe(
      publisherFamily('RFI', 'https://www.rfi.fr/b'),
    );
  });

  it('keeps other outlets apart: by the link host, else the source name', () => {
    expect(publisherFamily('GDELT: conflict', 'https://www.example-times.test/a')).toBe('example-times.test');
    expect(publisherFamily('GDELT: conflict', 'https://daily.example.org/b')).toBe('daily.example.org');
    expect(publisherFamily('Le Journal', 'not a url')).toBe('le journal');
  });
});

describe('layers that may share an event', () => {
  it('is symmetric, and refuses pairs that cannot describe one happening', () => {
    for (const a of LAYERS) for (const b of LAYERS) expect(layersLink(a, b)).toBe(layersLink(b, a));
    expect(layersLink('cyber', 'disaster')).toBe(false);
    expect(layersLink('health', 'cyber')).toBe(false);
    expect(layersLink('military', 'political')).toBe(true);
  });
});
