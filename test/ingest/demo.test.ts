import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { isCountryCode, regionOf, REGIONS } from '../../src/countries';
import { generateDemoSignals, type DemoItem } from '../../src/ingest/demo';
import { extractEntities } from '../../src/reading/entities';
import { LAYERS, SOURCE_TIERS, VALENCES } from '../../src/vocab';

const NOW = new Date('2025-06-01T12:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const COUNT = 5_000;

const ageMs = (item: DemoItem) => NOW.getTime() - Date.parse(item.published_at);
const countBy = <T>(items: readonly T[], key: (item: T) => string) => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
};

let items: DemoItem[];

beforeAll(() => {
  items = generateDemoSignals({ count: COUNT, now: NOW, seed: 42 });
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('generateDemoSignals: determinism and shape', () => {
  it('returns exactly `count` items, and nothing for zero', () => {
    expect(items).toHaveLength(COUNT);
    expect(generateDemoSignals({ count: 0, now: NOW })).toEqual([]);
    expect(generateDemoSignals({ count: 3, now: NOW })).toHaveLength(3);
  });

  it('is deterministic for the same count, now and seed, and uses neither Math.random nor Date.now', () => {
    vi.spyOn(Math, 'random').mockImplementation(() => {
      throw new Error('Math.random used');
    });
    vi.spyOn(Date, 'now').mockImplementation(() => {
      throw new Error('Date.now used');
    });
    expect(generateDemoSignals({ count: COUNT, now: NOW, seed: 42 })).toEqual(items);
    expect(generateDemoSignals({ count: 200, now: NOW })).toEqual(
      generateDemoSignals({ count: 200, now: NOW }),
    );
  });

  it('changes with the seed', () => {
    const other = generateDemoSignals({ count: 200, now: NOW, seed: 43 });
    const same = generateDemoSignals({ count: 200, now: NOW, seed: 42 });
    expect(other.map((i) => i.source_url)).not.toEqual(same.map((i) => i.source_url));
  });

  it('sorts by published_at and stamps ISO 8601 UTC times, collected minutes to hours later and never after now', () => {
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      expect(item.published_at).toMatch(iso);
      expect(item.collected_at).toMatch(iso);
      if (i > 0) expect(item.published_at >= items[i - 1]!.published_at).toBe(true);
      const published = Date.parse(item.published_at);
      const collected = Date.parse(item.collected_at);
      expect(collected).toBeGreaterThanOrEqual(published);
      expect(collected - published).toBeLessThanOrEqual(6 * HOUR + 5 * 60_000);
      expect(collected).toBeLessThanOrEqual(NOW.getTime());
    }
    const lags = items.map((i) => Date.parse(i.collected_at) - Date.parse(i.published_at));
    expect(lags.filter((lag) => lag >= 3 * 60_000).length).toBeGreaterThan(COUNT * 0.9);
    expect(lags.filter((lag) => lag >= HOUR).length).toBeGreaterThan(COUNT * 0.1);
  });

  it('scores with one decimal between 0 and 10', () => {
    for (const { significance_score: score } of items) {
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(10);
      expect(Math.round(score * 10) / 10).toBe(score);
    }
    expect(items.some((i) => i.significance_score >= 8)).toBe(true);
    expect(items.some((i) => i.significance_score < 3)).toBe(true);
  });

  it('gives every item a unique source_url on its source domain', () => {
    expect(new Set(items.map((i) => i.source_url)).size).toBe(COUNT);
    for (const item of items) {
      expect(item.source_url.startsWith(`${item.source.url}/${item.published_at.slice(0, 4)}/`)).toBe(true);
      expect(item.source_url).toMatch(/^https:\/\/[a-z0-9.-]+\/\d{4}\/[a-z0-9-]+-\d+$/);
    }
  });

  it('writes headlines of about 6 to 12 words and content of one to three sentences', () => {
    const english = items.filter((i) => i.language === 'en');
    const wordCounts = english.map((i) => i.title.split(' ').length);
    expect(Math.min(...wordCounts)).toBeGreaterThanOrEqual(5);
    expect(Math.max(...wordCounts)).toBeLessThanOrEqual(15);
    expect(wordCounts.filter((n) => n >= 6 && n <= 12).length).toBeGreaterThan(english.length * 0.95);
    for (const item of english) {
      expect(item.title[0]).toMatch(/[A-Z]/);
      expect(item.content_display).toMatch(/\.$/);
      const sentences = item.content_display.split(/(?<!\b(?:Gen|Col|Dr|Adm|Mr|Ms|Lt))\.\s+(?=[A-Z])/);
      expect(sentences.length).toBeGreaterThanOrEqual(1);
      expect(sentences.length).toBeLessThanOrEqual(3);
      expect(item.content_display).not.toMatch(/\{|\}|undefined|\s\s/);
    }
  });

  // How fast it is belongs to `npm run bench` (bench/units.ts), not to a pass/fail test.
  it('scales to large counts with distinct source URLs', () => {
    const large = generateDemoSignals({ count: 100_000, now: NOW, seed: 2 });
    expect(large).toHaveLength(100_000);
    expect(new Set(large.map((i) => i.source_url)).size).toBe(100_000);
  });
});

describe('generateDemoSignals: coverage', () => {
  it('covers all 8 layers and all 3 valences, using only known values', () => {
    expect(new Set(items.map((i) => i.threat_layer))).toEqual(new Set(LAYERS));
    expect(new Set(items.map((i) => i.signal_valence))).toEqual(new Set(VALENCES));
  });

  it('covers all 7 regions and at least 40 countries, all valid codes', () => {
    for (const item of items) {
      expect(item.country_codes.length).toBeGreaterThanOrEqual(1);
      expect(item.country_codes.length).toBeLessThanOrEqual(2);
      for (const code of item.country_codes) expect(isCountryCode(code)).toBe(true);
    }
    expect(new Set(items.map((i) => regionOf(i.country_codes[0]!)))).toEqual(new Set(REGIONS));
    expect(new Set(items.flatMap((i) => i.country_codes)).size).toBeGreaterThanOrEqual(40);
    const pairs = items.filter((i) => i.country_codes.length === 2);
    expect(pairs.length).toBeGreaterThan(COUNT * 0.05);
    expect(pairs.every((i) => i.country_codes[0] !== i.country_codes[1])).toBe(true);
  });

  it('places signals in real cities with consistent coordinates, about 10% without a city', () => {
    const withoutCity = items.filter((i) => i.city === null);
    expect(withoutCity.length / COUNT).toBeGreaterThan(0.05);
    expect(withoutCity.length / COUNT).toBeLessThan(0.2);
    expect(withoutCity.every((i) => i.lat === null && i.lng === null)).toBe(true);

    const cityHome = new Map<string, string>();
    for (const item of items.filter((i) => i.city !== null)) {
      expect(item.lat).toBeTypeOf('number');
      expect(item.lng).toBeTypeOf('number');
      const home = `${item.country_codes[0]}|${item.lat}|${item.lng}`;
      expect(cityHome.get(item.city!) ?? home).toBe(home);
      cityHome.set(item.city!, home);
    }
    expect(cityHome.size).toBeGreaterThanOrEqual(60);
    const spotChecks: Record<string, [string, number, number]> = {
      Kyiv: ['UA', 50.45, 30.52],
      Nairobi: ['KE', -1.29, 36.82],
      'Buenos Aires': ['AR', -34.6, -58.38],
      Karachi: ['PK', 24.86, 67.01],
      Taipei: ['TW', 25.03, 121.57],
      Houston: ['US', 29.76, -95.37],
    };
    for (const [city, [code, lat, lng]] of Object.entries(spotChecks)) {
      expect(cityHome.get(city)).toBe(`${code}|${lat}|${lng}`);
    }
  });

  it('uses at least 30 sources across all tiers, in several languages', () => {
    const sources = new Map(items.map((i) => [i.source.name, i.source]));
    expect(sources.size).toBeGreaterThanOrEqual(30);
    expect(new Set([...sources.values()].map((s) => s.tier))).toEqual(new Set(SOURCE_TIERS));
    expect(new Set([...sources.values()].map((s) => s.language)).size).toBeGreaterThanOrEqual(6);
    for (const source of sources.values()) expect(source.url).toMatch(/^https:\/\/[a-z0-9.-]+\.[a-z]{2,}$/);

    const languages = countBy(items, (i) => i.language);
    expect(languages.size).toBeGreaterThanOrEqual(4);
    expect(languages.get('en')! / COUNT).toBeGreaterThan(0.75);
  });
});

describe('generateDemoSignals: time profile', () => {
  it('spreads signals over the 30 days before now, every day represented', () => {
    for (const item of items) {
      expect(ageMs(item)).toBeGreaterThanOrEqual(0);
      expect(ageMs(item)).toBeLessThanOrEqual(30 * DAY);
    }
    const days = countBy(items, (i) => String(Math.floor(ageMs(i) / DAY)));
    for (let day = 0; day < 30; day++) expect(days.get(String(day)) ?? 0, `day ${day}`).toBeGreaterThan(10);
  });

  it('has a denser stream in the last 6 hours, with signals in the last 4 hours and the last hour', () => {
    const recent = items.filter((i) => ageMs(i) <= 6 * HOUR).length;
    const older = COUNT - recent;
    const recentRate = recent / 6;
    const olderRate = older / (30 * 24 - 6);
    expect(recentRate).toBeGreaterThan(olderRate * 5);
    expect(items.filter((i) => ageMs(i) <= 4 * HOUR).length).toBeGreaterThan(50);
    expect(items.filter((i) => ageMs(i) <= HOUR).length).toBeGreaterThan(10);
  });

  it('bursts: 3 or more country/layer pairs far above their usual rate in the last 6 hours', () => {
    const key = (i: DemoItem) => `${i.country_codes[0]}|${i.threat_layer}`;
    const recent = countBy(
      items.filter((i) => ageMs(i) <= 6 * HOUR),
      key,
    );
    const before = countBy(
      items.filter((i) => ageMs(i) > 6 * HOUR),
      key,
    );
    const spikes = [...recent].filter(([pair, n]) => {
      const usualPerSixHours = (before.get(pair) ?? 0) / ((30 * 24 - 6) / 6);
      return n >= 20 && n > 10 * Math.max(usualPerSixHours, 0.5);
    });
    expect(spikes.length).toBeGreaterThanOrEqual(3);
  });

  it('compound crises: countries with two or more layers of high scores in the last 7 days', () => {
    const highLayers = new Map<string, Set<string>>();
    for (const item of items.filter((i) => ageMs(i) <= 7 * DAY && i.significance_score >= 7)) {
      const code = item.country_codes[0]!;
      highLayers.set(code, (highLayers.get(code) ?? new Set()).add(item.threat_layer));
    }
    const compound = [...highLayers].filter(([, layers]) => layers.size >= 2);
    expect(compound.length).toBeGreaterThanOrEqual(2);
  });

  it('storylines move from crisis to resolution over days', () => {
    const byStory = new Map<string, { crisis: number[]; resolution: number[] }>();
    for (const item of items.filter((i) => i.signal_valence !== 'update')) {
      const key = `${item.country_codes[0]}|${item.threat_layer}`;
      const ages = byStory.get(key) ?? { crisis: [], resolution: [] };
      ages[item.signal_valence as 'crisis' | 'resolution'].push(ageMs(item));
      byStory.set(key, ages);
    }
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const resolvedStories = [...byStory.values()].filter(
      (s) => s.crisis.length >= 10 && s.resolution.length >= 10,
    );
    expect(resolvedStories.length).toBeGreaterThanOrEqual(5);
    for (const story of resolvedStories)
      expect(mean(story.crisis)).toBeGreaterThan(mean(story.resolution) + 2 * DAY);
  });
});

describe('generateDemoSignals: narrative content', () => {
  it('repeats named people, organisations and places across many signals, and pairs co-occur', () => {
    const perSignal = items.map((i) =>
      extractEntities(`${i.title}\n${i.content_display}`).map((e) => `${e.type}:${e.name}`),
    );
    const signalsPerEntity = countBy(perSignal.flat(), (e) => e);
    const recurring = [...signalsPerEntity].filter(([, n]) => n >= 10).map(([e]) => e);
    expect(recurring.filter((e) => e.startsWith('person:')).length).toBeGreaterThanOrEqual(20);
    expect(recurring.filter((e) => e.startsWith('organization:')).length).toBeGreaterThanOrEqual(20);
    expect(recurring.filter((e) => e.startsWith('location:')).length).toBeGreaterThanOrEqual(20);
    for (const expected of [
      'person:Tarek Osman',
      'organization:Rapid Support Forces',
      'location:El Fasher',
    ]) {
      expect(signalsPerEntity.get(expected) ?? 0, expected).toBeGreaterThanOrEqual(10);
    }

    const pairCounts = new Map<string, number>();
    for (const entities of perSignal) {
      const people = entities.filter((e) => e.startsWith('person:'));
      const others = entities.filter((e) => !e.startsWith('person:'));
      for (const person of people) {
        for (const other of others)
          pairCounts.set(`${person}+${other}`, (pairCounts.get(`${person}+${other}`) ?? 0) + 1);
      }
    }
    expect([...pairCounts.values()].filter((n) => n >= 10).length).toBeGreaterThanOrEqual(15);
    expect(pairCounts.get('person:Tarek Osman+location:El Fasher') ?? 0).toBeGreaterThanOrEqual(10);
  });

  it('writes some signals in the outlet language and keeps the rest in English', () => {
    const native = items.filter((i) => i.language !== 'en');
    expect(native.length).toBeGreaterThan(0);
    expect(native.every((i) => i.language === i.source.language)).toBe(true);
    expect(items.some((i) => i.language === 'en' && i.source.language !== 'en')).toBe(true);
  });
});
