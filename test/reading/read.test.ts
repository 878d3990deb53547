import { describe, expect, it } from 'vitest';
import { casualtyTerm, cyrillicLanguage, itemLanguage, linkGate, readNews } from '../../src/reading/read';
import { findCasualties } from '../../src/reading/casualties';
import { rulesFor, SUPPORTED_LANGUAGES } from '../../src/reading/rules';

// Every headline here is invented for the test.
const read = (title: string, language: string, summary = '', link: string | null = null) =>
  readNews({ title, summary, link, language, tier: 'core', countries: [] });

describe('the event gate', () => {
  it('drops shells, explainers and questions by headline form', () => {
    expect(read('Watch: rescuers reach the flooded valley', 'en').gate).toMatch(/^form/);
    expect(read('How the port became a target', 'en').gate).toMatch(/^form/);
    expect(read('Is the ceasefire about to collapse?', 'en').gate).toMatch(/^form/);
    expect(read('What we know about the reactor leak', 'en').gate).toMatch(/^form/);
  });

  it('drops commentary sections, video pages and commentary outlets by link', () => {
    expect(linkGate('https://paper.example/opinion/2026/war-is-coming')).toBe('path: /opinion/');
    expect(linkGate('https://paper.example/news/av/world-123')).toBe('path: /av/');
    expect(linkGate('https://theconversation.com/a-flood-of-problems-1')).toBe('outlet: theconversation.com');
    // the slug is the article's own words, not a section
    expect(linkGate('https://paper.example/world/live')).toBeNull();
    expect(read('Army shells border town', 'en', '', 'https://paper.example/features/x').gate).toBe(
      'path: /features/',
    );
  });

  it('lets hard news through whatever its form, but never a question or a retrospective', () => {
    expect(read('Watch: Missile strike kills 12 in border town', 'en').event).toBe(true);
    expect(read('Live: earthquake hits the capital, buildings collapsed', 'en').event).toBe(true);
    expect(read('Watch: how many were killed in the strike?', 'en').event).toBe(false);
    expect(read('Ten years on: the earthquake that killed 300', 'en').event).toBe(false);
  });

  it('drops sport and culture, and topic words without an event', () => {
    expect(read('Football final: striker scores twice as champions win', 'en').gate).toMatch(/^topic/);
    expect(read('Covid-19 survivors share their recovery stories', 'en').event).toBe(false);
  });

  it('reads the form behind a dateline or label ("Country: How…")', () => {
    expect(read('Freedonia: Wie die Regierung den Haushaltsstreit verschärft', 'de').gate).toMatch(/^form/);
    expect(read('Freedonia: how the blockade began', 'en').gate).toMatch(/^form/);
    // a label does not make a report a shell
    expect(read('Freedonia: artillery shelling hits the border town', 'en').event).toBe(true);
  });

  it('drops negated events and live blogs', () => {
    expect(read('Freedonia is not about to invade its neighbour, officials insist', 'en').gate).toMatch(
      /^form/,
    );
    expect(read('Liveblog zum Hochwasser: Pegel steigen weiter', 'de').gate).toMatch(/^form/);
  });

  it('drops quotation headlines (interviews, features), but not a short quoted word in a report', () => {
    expect(read("'We rebuilt the school with our own hands': a village after the flood", 'en').gate).toMatch(
      /^form/,
    );
    expect(read('Hochwasser in Freedonia: „Wir haben alles verloren“', 'de').gate).toMatch(/^form/);
    expect(read('Inondations : « Nous avons tout perdu »', 'fr').gate).toMatch(/^form/);
    expect(read("'Unjust': Freedonia imposes sanctions on its neighbour", 'en').event).toBe(true);
  });

  it('lets a video page through when its headline names an event kind, not a soft section', () => {
    const video = 'https://paper.example/2026/05/01/world/videos/riot-port-city';
    expect(read('Protests in the port city turn violent', 'en', '', video).event).toBe(true);
    expect(read('A baker shares her favourite bread', 'en', '', video).gate).toBe('path: /videos/');
    // a soft subject section still drops an event word used loosely
    expect(
      read('Volunteers invade the old harbour for the festival', 'en', '', 'https://paper.example/style/x')
        .gate,
    ).toBe('path: /style/');
  });

  it('does not keep a routine kind (an election held, a trial) on its own', () => {
    expect(read('Former mayor jailed after police inquiry into expenses', 'en').gate).toBe('no event');
    // a routine kind with strong layer evidence is still read
    expect(
      read('Opposition protests as parliament suspends election and president dissolves cabinet', 'en').event,
    ).toBe(true);
  });

  it('reads the gate in each language', () => {
    expect(read('Pourquoi la guerre commerciale inquiète les marchés', 'fr').event).toBe(false);
    expect(read('Was wir über den Vulkanausbruch wissen', 'de').event).toBe(false);
    expect(read('Por que a seca ameaça as colheitas', 'pt').event).toBe(false);
    expect(read('Cómo la sequía cambió el campo', 'es').event).toBe(false);
    expect(read('Почему подорожала гречка', 'ru').event).toBe(false);
    expect(read('Як пережити відключення світла: поради', 'uk').event).toBe(false);
    expect(read('كيف تغيرت أسعار القمح هذا العام', 'ar').event).toBe(false);
  });
});

describe('layer and event kind in eight languages', () => {
  const cases: [string, string, string, string][] = [
    ['en', 'Drone strike hits fuel depot near the front line', 'military', 'drone_attack'],
    ['fr', 'Des frappes aériennes visent un dépôt de carburant', 'military', 'air_strike'],
    ['de', 'Erdbeben erschüttert Bergregion, Häuser eingestürzt', 'disaster', 'earthquake'],
    ['pt', 'Ataque hacker com ransomware paralisa hospitais do estado', 'cyber', 'ransomware_critical'],
    ['es', 'Golpe de estado: militares toman el palacio presidencial', 'political', 'coup'],
    ['ru', 'Наводнение затопило три посёлка, идёт эвакуация', 'disaster', 'flood'],
    ['uk', 'Окупанти обстріляли прикордонні громади', 'military', 'shelling'],
    ['ar', 'غارات جوية على مواقع في الجنوب', 'military', 'air_strike'],
  ];
  it.each(cases)('%s: %s', (lang, title, layer, kind) => {
    expect(read(title, lang)).toMatchObject({ event: true, layer, kind, read_as: lang });
  });

  it('has a rule file for every supported language, each kind in the taxonomy', () => {
    for (const lang of SUPPORTED_LANGUAGES) expect(rulesFor(lang).kinds.length).toBeGreaterThan(20);
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

  it('keeps the most conservative figure and treats years as dates', () => {
    expect(dead('Quake kills 40; officials fear 100 dead', 'en')).toBe(40);
    // "2004 killed" is a year: only the single death the verb implies is read
    expect(dead('Survivors of 2004 killed recall the day', 'en')).toBe(1);
  });

  it('counts one death when the text says someone was killed without a number', () => {
    expect(dead('Journalist shot dead outside his home', 'en')).toBe(1);
  });

  it('is log-scaled: the first deaths weigh most', () => {
    const term = (d: number) => casualtyTerm({ dead: d, hurt: null, missing: null, evidence: [] });
    expect(term(1)).toBe(0.4);
    expect(term(25)).toBe(1.8);
    expect(term(100_000)).toBe(3.5);
    expect(term(25) - term(1)).toBeGreaterThan(term(181) - term(25));
  });
});

describe('severity from facts', () => {
  it('ranks a mass-casualty bombing above one person shot, whatever the adjectives', () => {
    const bombing = read('Suicide bombing at a mosque kills 30', 'en');
    const shooting = read('Man shot dead in horrific brutal attack at a wedding', 'en');
    expect(bombing.score).toBeGreaterThan(shooting.score + 2);
    // 1.3 × log10(1 + 30) = 1.9
    expect(bombing.terms).toMatchObject({ base: 5.5, casualties: 1.9, hedge: 0 });
  });

  it('lowers hedged reports and raises several-country scope', () => {
    const hedged = read('Storm could flood the coast', 'en');
    const plain = read('Storm floods the coast', 'en');
    expect(hedged.terms.hedge).toBe(-1);
    expect(plain.score - hedged.score).toBe(1);
    const wide = readNews({
      title: 'Floods hit the delta',
      tier: 'core',
      language: 'en',
      countries: ['BD', 'IN'],
    });
    expect(wide.terms.scope).toBe(0.5);
  });

  it('applies the tier', () => {
    const core = readNews({ title: 'Ransomware attack hits hospital', tier: 'core', language: 'en' });
    const found = readNews({ title: 'Ransomware attack hits hospital', tier: 'discovered', language: 'en' });
    expect(core.score - found.score).toBe(1);
  });
});

describe('valence follows the text', () => {
  it('reads resolution, escalation and updates', () => {
    expect(read('Ceasefire agreed after week of shelling', 'en').valence).toBe('resolution');
    expect(read('Death toll rises to 60 after the landslide', 'en').valence).toBe('crisis');
    expect(read('Trial opens for suspects in port bombing', 'en').valence).toBe('update');
    expect(read('Waffenruhe vereinbart: Kämpfe enden', 'de').valence).toBe('resolution');
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

  it('reads another language only when layer, kind and country are plain, else counts it unread', () => {
    const plain = readNews({
      title: 'Tsunami warning after earthquake',
      tier: 'core',
      language: 'id',
      countries: ['ID'],
    });
    expect(plain).toMatchObject({ event: true, layer: 'disaster', read_as: null });
    const unclear = readNews({
      title: 'Gempa bumi mengguncang wilayah selatan',
      tier: 'core',
      language: 'id',
      countries: [],
    });
    expect(unclear).toMatchObject({ event: false, gate: 'unread language' });
  });
});
