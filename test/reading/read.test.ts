import { describe, expect, it } from 'vitest';
import { findCasualties } from '../../src/reading/casualties';
import {
  DIMENSION,
  featuresOf,
  linkSections,
  withoutOutlet,
  type ReadFacts,
} from '../../src/reading/features';
import { fixedModel } from './fixed-model';
import { cyrillicLanguage, itemLanguage, SUPPORTED_LANGUAGES } from '../../src/reading/language';
import {
  dequantise,
  LinearModel,
  OUTPUTS,
  quantise,
  SEVERITY_SHARE,
  SEVERITY_STEP,
} from '../../src/reading/model';
import { casualtyTerm, readFacts, readNews, type NewsInput } from '../../src/reading/read';
import { KINDS, LAYER_DEFAULT_BASE, LEVELS, rulesFor } from '../../src/reading/rules';

// Every headline here is invented for the test.

const input = (title: string, language = 'en', extra: Partial<NewsInput> = {}): NewsInput => ({
  title,
  language,
  tier: 'core',
  countries: [],
  ...extra,
});
const kinds = (title: string, language: string) =>
  readFacts(input(title, language)).facts.kinds.map((k) => k.kind);

describe('facts the rules state', () => {
  const cases: [string, string, string][] = [
    ['en', 'Drone strike hits fuel depot near the front line', 'drone_attack'],
    ['fr', 'Des frappes aériennes visent un dépôt de carburant', 'air_strike'],
    ['de', 'Erdbeben erschüttert Bergregion, Häuser eingestürzt', 'earthquake'],
    ['pt', 'Ataque hacker com ransomware paralisa hospitais do estado', 'ransomware_critical'],
    ['es', 'Golpe de estado: militares toman el palacio presidencial', 'coup'],
    ['ru', 'Наводнение затопило три посёлка, идёт эвакуация', 'flood'],
    ['uk', 'Окупанти обстріляли прикордонні громади', 'shelling'],
    ['ar', 'غارات جوية على مواقع في الجنوب', 'air_strike'],
  ];
  it.each(cases)('%s: the event kind of "%s"', (lang, title, kind) => {
    expect(kinds(title, lang)).toContain(kind);
  });

  it('has a fact file for every supported language, each kind in the taxonomy', () => {
    for (const lang of SUPPORTED_LANGUAGES) expect(rulesFor(lang).kinds.length).toBeGreaterThan(20);
  });

  it('marks whether the headline or only the summary names the kind', () => {
    const read = readFacts(
      input('Rescue teams reach the valley', 'en', { summary: 'The earthquake destroyed roads.' }),
    );
    expect(read.facts.kinds).toContainEqual({ kind: 'earthquake', layer: 'disaster', head: false });
  });
});

describe('casualties', () => {
  const dead = (text: string, lang: string) => findCasualties(text, rulesFor(lang as never).casualties).dead;
  it('reads digits, number words and vague amounts in either order', () => {
    expect(dead('Blast kills 12 at bus station', 'en')).toBe(12);
    expect(dead('At least 1,200 dead after the cyclone', 'en')).toBe(1200);
    expect(dead('Death toll rises to 181 after floods', 'en')).toBe(181);
    expect(dead('Dozens killed in village raid', 'en')).toBe(24);
    expect(dead('Zahl der Toten auf sieben gestiegen', 'de')).toBe(7);
    expect(dead('Séisme : au moins 40 morts', 'fr')).toBe(40);
    expect(dead('Desabamento deixa cinco mortos', 'pt')).toBe(5);
    expect(dead('Temporal deja 9 muertos en la costa', 'es')).toBe(9);
    expect(dead('В результате аварии погибли 3 человека', 'ru')).toBe(3);
    expect(dead("Внаслідок удару загинули п'ятеро людей", 'uk')).toBe(5);
    expect(dead('مقتل 8 أشخاص في انفجار', 'ar')).toBe(8);
  });

  it('reads a Russian or Ukrainian toll that rose to a figure, in the genitive after "до"', () => {
    expect(dead('Число погибших при пожаре на складе возросло до семи', 'ru')).toBe(7);
    expect(dead('Количество погибших после паводка выросло до 6', 'ru')).toBe(6);
    expect(dead("Кількість загиблих унаслідок зсуву зросла до дев'яти", 'uk')).toBe(9);
  });

  it('keeps the most conservative figure and treats years as dates', () => {
    expect(dead('Quake kills 40; officials fear 100 dead', 'en')).toBe(40);
    // "2004 killed" is a year: only the single death the verb implies is read
    expect(dead('Survivors of 2004 killed recall the day', 'en')).toBe(1);
  });

  it('counts one death when the text says someone was killed without a number', () => {
    expect(dead('Journalist shot dead outside his home', 'en')).toBe(1);
  });

  it('lifts the level by the bucket the casualty count reaches, at least to its rubric floor', () => {
    const term = (dead: number | null, hurt: number | null = null, base = 10) =>
      casualtyTerm({ dead, hurt, missing: null, evidence: [] }, base);
    const { edges, lifts, floors } = LEVELS.casualties;
    expect(edges).toEqual([1, 2, 10, 100]);
    // over a high base the fitted lifts count, never less for more casualties
    expect(term(null)).toBe(0);
    expect(term(1)).toBe(lifts[0]);
    expect(term(9)).toBe(lifts[1]);
    expect(term(25)).toBe(lifts[2]);
    expect(term(100_000)).toBe(lifts[3]);
    for (let i = 1; i < lifts.length; i++) expect(lifts[i]).toBeGreaterThanOrEqual(lifts[i - 1]!);
    // the hurt count a third: six hurt weigh as two dead
    expect(term(null, 6)).toBe(lifts[1]);
    // over a low base the rubric's floor is reached: 25 dead lift a base of 3 to the floor from 10
    expect(term(25, null, 3)).toBeCloseTo(floors[2]! - 3, 5);
    expect(term(null, null, 3)).toBe(0);
  });
});

describe('severity: the rules set the level, the model moves it within a step', () => {
  const level = (t: { base: number; casualties: number; scope: number; hedge: number }) =>
    Math.round((t.base + t.casualties + t.scope + t.hedge) * 10) / 10;

  it('takes the base of the kind of the layer read, plus casualties', () => {
    const base = KINDS.mass_casualty_attack!.base;
    // 30 dead: the bucket from 10, its fitted lift or up to its floor
    const { lifts, floors } = LEVELS.casualties;
    const casualties = Math.max(lifts[2]!, Math.round((floors[2]! - base) * 10) / 10);
    // the model's estimate equals the facts' level: it moves nothing
    const model = fixedModel({ keep: true, layer: 'criminal', severity: base + casualties });
    const bombing = readNews(input('Suicide bombing at a mosque kills 30'), model);
    expect(bombing).toMatchObject({ layer: 'criminal', kind: 'mass_casualty_attack' });
    expect(bombing.terms).toMatchObject({ base, casualties, hedge: 0, model: 0, tier: 0 });
    expect(bombing.score).toBeCloseTo(base + casualties, 5);
    // a kind of another layer than the one read does not set the base: the layer's default does
    const elsewhere = readNews(
      input('Suicide bombing at a mosque kills 30'),
      fixedModel({ keep: true, layer: 'health' }),
    );
    expect(elsewhere.terms.base).toBe(LAYER_DEFAULT_BASE.health);
  });

  it('adds the fitted lifts of a hedged headline and of several-country scope, applies the tier', () => {
    const model = fixedModel({ keep: true, layer: 'disaster' });
    const hedged = readNews(input('Storm could flood the coast'), model);
    const plain = readNews(input('Storm floods the coast'), model);
    expect(hedged.terms.hedge).toBe(LEVELS.hedge);
    expect(plain.terms.hedge).toBe(0);
    expect(
      readNews(input('Floods hit the delta', 'en', { countries: ['BD', 'IN'] }), model).terms.scope,
    ).toBe(LEVELS.scope);
    const found = readNews(input('Storm floods the coast', 'en', { tier: 'discovered' }), model);
    expect(plain.score - found.score).toBeCloseTo(1, 9);
  });

  it("moves the level halfway towards the model's estimate, by at most ±SEVERITY_STEP, and shows the move", () => {
    const at = (severity: number) =>
      readNews(input('Storm floods the coast'), fixedModel({ keep: true, layer: 'disaster', severity }));
    // storm: its base, no casualties, no hedge, no scope
    const storm = level(at(0).terms);
    expect(storm).toBe(KINDS.storm!.base);
    expect(at(storm + 1).terms.model).toBeCloseTo(Math.min(SEVERITY_SHARE, SEVERITY_STEP), 9);
    expect(at(10).terms.model).toBe(SEVERITY_STEP);
    expect(at(0).terms.model).toBe(-SEVERITY_STEP);
    expect(at(10).score - at(0).score).toBeCloseTo(2 * SEVERITY_STEP, 9);
    for (const r of [at(0), at(storm + 1), at(10)])
      expect(r.score).toBeCloseTo(level(r.terms) + r.terms.model + r.terms.tier, 5);
  });
});

describe('the model decides keep, layer and valence', () => {
  it('drops what the model does not keep, saying so', () => {
    const read = readNews(input('Storm floods the coast'), fixedModel({ keep: false }));
    expect(read).toMatchObject({ event: false, layer: null, score: 0 });
    expect(read.gate).toMatch(/^model: keep 0/);
  });

  it('takes layer and valence from the model, with its confidence', () => {
    const read = readNews(
      input('Ceasefire holds'),
      fixedModel({ keep: true, layer: 'military', valence: 'resolution' }),
    );
    expect(read).toMatchObject({
      event: true,
      layer: 'military',
      valence: 'resolution',
      valence_cue: 'model',
    });
    expect(read.confidence.keep).toBe(1);
  });

  it('reads another language only when the model keeps it and a country is found', () => {
    const model = fixedModel({ keep: true, layer: 'disaster' });
    const plain = readNews(input('Tsunami warning after earthquake', 'id', { countries: ['ID'] }), model);
    expect(plain).toMatchObject({ event: true, layer: 'disaster', read_as: null });
    const unplaced = readNews(input('Gempa bumi mengguncang wilayah selatan', 'id'), model);
    expect(unplaced).toMatchObject({ event: false, gate: 'unread language' });
    const dropped = readNews(
      input('Gempa bumi di Jawa', 'id', { countries: ['ID'] }),
      fixedModel({ keep: false }),
    );
    expect(dropped).toMatchObject({ event: false, gate: 'unread language' });
  });
});

describe('features', () => {
  const facts: ReadFacts = {
    language: 'uk',
    readAs: 'uk',
    kinds: [],
    casualties: { dead: null, hurt: null, missing: null, evidence: [] },
    hedges: [],
    scope: false,
    countries: 0,
  };
  const of = (title: string, summary = '') => featuresOf({ title, summary, facts });

  it('are the same for the same item, with distinct buckets in range', () => {
    const a = of('Окупанти обстріляли прикордонні громади', 'Загинули двоє людей');
    const b = of('Окупанти обстріляли прикордонні громади', 'Загинули двоє людей');
    expect([...a.index]).toEqual([...b.index]);
    expect(new Set(a.index).size).toBe(a.index.length);
    expect(Math.max(...a.index)).toBeLessThan(DIMENSION);
  });

  it('share character grams between word forms (обстріляли, обстріл)', () => {
    const a = new Set(of('обстріляли').index);
    const shared = [...of('обстріл').index].filter((i) => a.has(i));
    expect(shared.length).toBeGreaterThan(5);
  });

  it('leave out the outlet named at the end of the headline and of a summary that repeats it', () => {
    expect(
      withoutOutlet('Общество останется расколотым - Росбалт', 'Общество останется расколотым Росбалт'),
    ).toEqual({ title: 'Общество останется расколотым', summary: 'Общество останется расколотым' });
    expect(withoutOutlet('Proteste in Israel gehen weiter | tagesschau.de', '').title).toBe(
      'Proteste in Israel gehen weiter',
    );
    expect(of('Flood kills 12 - Daily Planet').index).toEqual(of('Flood kills 12 - Morning Post').index);
    // a long tail after a dash is part of the headline, not a name
    const long = 'Kyiv under fire - seven drones and three missiles hit the city overnight';
    expect(withoutOutlet(long, '').title).toBe(long);
  });

  it('read the sections of the link, not its slug or dates', () => {
    expect(linkSections('https://paper.example/sport/2026/05/01/final-score')).toEqual(['sport']);
    expect(linkSections('https://paper.example/world/europe/story-1')).toEqual(['world', 'europe']);
    expect(linkSections('not a url')).toEqual([]);
  });
});

describe('the model file', () => {
  it('keeps weights within one int8 step of the trained ones', () => {
    const w = new Float32Array(OUTPUTS * 4).map((_, i) => Math.sin(i) * (i % OUTPUTS));
    const model = new LinearModel(w, new Float64Array(OUTPUTS), 0.5);
    const { scales, bytes } = quantise(model);
    const back = dequantise(scales, bytes);
    for (let i = 0; i < w.length; i++)
      expect(Math.abs(back[i]! - w[i]!)).toBeLessThanOrEqual(scales[i % OUTPUTS]! / 2 + 1e-6);
  });
});

describe('language', () => {
  it('takes the feed tag, else detects on a prefix, and tells Ukrainian from Russian by letters', () => {
    expect(itemLanguage('pt-BR', 'anything')).toBe('pt');
    expect(cyrillicLanguage('Обстріли тривають у кількох областях')).toBe('uk');
    // English function words overrule a detector's guess on a headline full of names
    expect(itemLanguage(null, 'Kishor jabs Choudhary over the road to Patna after the vote')).toBe('en');
    expect(cyrillicLanguage('Обстрелы продолжаются в нескольких областях, эвакуация')).toBe('ru');
  });
});
