import { describe, expect, it } from 'vitest';
import { extractEntities } from '../../src/reading/entities';
import {
  actorVeto,
  entityText,
  eventTextOf,
  featuresOf,
  linkBatch,
  matchSignal,
  type CandidateEvent,
  type EventText,
  type NewSignal,
} from '../../src/events/match';
import { NEWS } from '../../src/events/rules';
import { similarity, stripAttribution, textFeatures } from '../../src/events/text';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-20T08:00:00Z');

function text(title: string, summary = ''): EventText {
  const found = extractEntities(`${title}\n${summary}`);
  return {
    title,
    summary,
    places: found.filter((e) => e.type === 'location').map((e) => e.name),
    actors: found.filter((e) => e.type !== 'location').map((e) => e.name),
  };
}

let n = 0;
function signal(title: string, summary: string, over: Partial<NewSignal> = {}): NewSignal {
  const t = text(title, summary);
  return {
    id: `s${++n}`,
    threatLayer: 'military',
    countryCodes: ['XK'],
    publishedAt: T0 + HOUR,
    upstreamKeys: [],
    quake: null,
    text: t,
    features: featuresOf(t),
    ...over,
  };
}

function event(title: string, summary: string, over: Partial<CandidateEvent> = {}): CandidateEvent {
  return {
    id: `e${++n}`,
    threatLayer: 'military',
    countryCodes: ['XK'],
    firstSeenAt: T0,
    lastSeenAt: T0,
    createdAt: T0,
    upstreamKeys: [],
    texts: [text(title, summary)],
    quake: null,
    ...over,
  };
}

const storm = event(
  'Drones strike fuel depot outside Varnagrad, officials say',
  'Regional officials in Varnagrad said a fuel depot burned for hours after an overnight drone strike.',
);
const sameStorm = (over: Partial<NewSignal> = {}) =>
  signal(
    'Fuel depot near Varnagrad ablaze after overnight drone strike',
    'The depot outside Varnagrad was hit by drones overnight, regional officials said, and burned for hours.',
    over,
  );

describe('news similarity', () => {
  it('links a paraphrase of the same story and not a different story of the same place', () => {
    expect(matchSignal(sameStorm(), [storm])?.event.id).toBe(storm.id);
    const other = signal(
      'Varnagrad council approves new budget for schools',
      'The city council voted on Tuesday to raise spending on schools and libraries.',
      { threatLayer: 'political' },
    );
    expect(matchSignal(other, [storm])).toBeNull();
  });

  it('strips an attribution suffix before comparing headlines', () => {
    expect(stripAttribution('Fuel depot near Varnagrad ablaze after drone strike - Reuters')).toBe(
      'Fuel depot near Varnagrad ablaze after drone strike',
    );
    expect(stripAttribution('Fuel depot near Varnagrad ablaze | The Daily Example')).toBe(
      'Fuel depot near Varnagrad ablaze',
    );
    const a = textFeatures('Fuel depot near Varnagrad ablaze after drone strike - Reuters', '');
    const b = textFeatures('Fuel depot near Varnagrad ablaze after drone strike — Example Wire', '');
    expect(similarity(a, b)).toBeCloseTo(1, 5);
  });

  it('counts a truncated headline contained in another as the same story', () => {
    const cut = textFeatures('Fuel depot near Varnagrad ablaze after overnight…', '');
    const full = textFeatures('Fuel depot near Varnagrad ablaze after overnight drone strike kills two', '');
    expect(similarity(cut, full)).toBe(1);
    // Too short a cut says too little.
    expect(similarity(textFeatures('Fuel depot…', ''), full)).toBeLessThan(1);
  });

  it('compares a Cyrillic name with its Latin spelling (Львів / Lviv, Харків / Kharkiv)', () => {
    expect([...textFeatures('Львів: вибух на заводі', '').words.keys()]).toContain('lviv');
    expect([...textFeatures('Харків під обстрілом', '').words.keys()]).toContain('kharki');
    expect([...textFeatures('Explosion at a plant in Lviv', '').words.keys()]).toContain('lviv');
  });

  it('normalises numbers: 1,000 and 1000 are one token', () => {
    const a = textFeatures('Floods force 12,000 from homes in Orvale', '');
    const b = textFeatures('Floods force 12000 from homes in Orvale', '');
    expect(similarity(a, b)).toBeCloseTo(1, 5);
  });
});

describe('when news never links', () => {
  it('refuses layers that cannot describe the same event, however similar the text', () => {
    expect(matchSignal(sameStorm({ threatLayer: 'health' }), [storm])).toBeNull();
    expect(matchSignal(sameStorm({ threatLayer: 'disaster' }), [storm])).toBeNull();
    // A compatible layer links, over a higher bar.
    expect(matchSignal(sameStorm({ threatLayer: 'political' }), [storm])?.event.id).toBe(storm.id);
    expect(NEWS.crossLayer).toBeGreaterThan(NEWS.sameLayer);
  });

  it('refuses countries that disagree, and links when neither side has one', () => {
    expect(matchSignal(sameStorm({ countryCodes: ['YT'] }), [storm])).toBeNull();
    const bare = { ...storm, id: 'bare', countryCodes: [] };
    expect(matchSignal(sameStorm({ countryCodes: [] }), [bare])?.event.id).toBe('bare');
  });

  it('keeps to the time window around the event', () => {
    const late = T0 + NEWS.windowDays * 24 * HOUR + HOUR;
    expect(matchSignal(sameStorm({ publishedAt: late }), [storm])).toBeNull();
    expect(matchSignal(sameStorm({ publishedAt: late - 2 * HOUR }), [storm])?.event.id).toBe(storm.id);
  });

  it("meets an actor by its stem: one outlet's Zelenskyy is another's Zelensky, no veto", () => {
    const a = text('Volodymyr Zelenskyy visits Warsaw for talks on jets', 'Talks in Warsaw on Wednesday.');
    const b = text(
      'Poland pledges more jets as Zelensky visits Warsaw',
      'Andrzej Duda met him in Warsaw on Wednesday.',
    );
    expect(a.actors.some((x) => x.includes('Zelenskyy'))).toBe(true);
    expect(actorVeto(a, b)).toBe(false);
    // Another protagonist altogether, met nowhere in the other text, is still vetoed.
    const c = text('Olaf Scholz visits Warsaw for talks on jets', 'Talks in Warsaw on Wednesday.');
    expect(actorVeto(c, b)).toBe(true);
  });

  it("leaves an aggregator's outlet out of a news item's event text and entities, never a feed title's place", () => {
    const title = 'Storm floods Orvale harbour - Daily Tessaly';
    const content = 'Storm floods Orvale harbour  Daily Tessaly';
    const news = eventTextOf({
      title,
      content,
      entities: extractEntities(entityText(title, content, true)),
      reading: { kind: 'storm', dead: null, city: null },
    });
    expect(news.title).toBe('Storm floods Orvale harbour');
    expect(news.summary).toBe('');
    expect([...news.actors, ...news.places].join(' ')).not.toMatch(/Tessaly/);
    // A feed's own title (no reading) keeps what follows its dash: there it is the place.
    const quake = 'M 5.9 - 35 km NNW of Herat, Afghanistan';
    expect(eventTextOf({ title: quake, content: '', entities: [] }).title).toBe(quake);
    expect(entityText(quake, '', false)).toContain('Afghanistan');
  });

  it('vetoes the same place with different actors', () => {
    const a = text(
      'Greenwald Bank sues Orvale Holdings in London court over loan',
      'Greenwald Bank filed the claim in London on Monday.',
    );
    const b = text(
      'Marlow Shipping sues Tessaly Freight in London court over cargo',
      'Marlow Shipping filed the claim in London on Monday.',
    );
    expect(actorVeto(a, b)).toBe(true);
    // One names the other's actor: the same story told from another side.
    const c = text(
      'Orvale Holdings to fight Greenwald Bank claim in London',
      'Orvale Holdings said it would contest the claim in London.',
    );
    expect(actorVeto(a, c)).toBe(false);
    const e = event(a.title, a.summary, { threatLayer: 'economic', countryCodes: ['GB'], texts: [a] });
    const s = signal(b.title, b.summary, {
      threatLayer: 'economic',
      countryCodes: ['GB'],
      text: b,
      features: featuresOf(b),
    });
    expect(similarity(s.features, featuresOf(a))).toBeGreaterThanOrEqual(NEWS.sameLayer);
    expect(matchSignal(s, [e])).toBeNull();
  });
});

describe('facts before text', () => {
  it('joins the oldest of the events sharing an upstream key and merges the others into it', () => {
    const older = event('CVE-2026-1111: Example Router flaw', '', {
      threatLayer: 'cyber',
      upstreamKeys: ['cve:CVE-2026-1111'],
      createdAt: T0,
    });
    const newer = event('Unrelated text', '', {
      threatLayer: 'cyber',
      upstreamKeys: ['usgs:zz1'],
      createdAt: T0 + HOUR,
    });
    const s = signal('Something else entirely', '', {
      threatLayer: 'cyber',
      upstreamKeys: ['cve:CVE-2026-1111', 'usgs:zz1'],
    });
    const m = matchSignal(s, [newer, older])!;
    expect(m.rule).toBe('upstream_key');
    expect(m.event.id).toBe(older.id);
    expect(m.merge.map((e) => e.id)).toEqual([newer.id]);
  });
});

describe('one event across languages: the facts the reading carries', () => {
  const carried = (title: string, facts: Pick<EventText, 'kind' | 'dead' | 'city'>): EventText => ({
    ...text(title),
    ...facts,
  });
  const withText = (t: EventText, over: Partial<NewSignal> = {}): NewSignal => ({
    ...signal('placeholder', ''),
    text: t,
    features: featuresOf(t),
    ...over,
  });
  const strikeEn = carried('Missile strike on Varnagrad apartment block kills 7', {
    kind: 'missile_attack',
    dead: 7,
    city: 'Varnagrad',
  });

  it('links a Russian and an English report of one strike (same kind, country, toll)', () => {
    const stored = event('', '', { texts: [strikeEn] });
    const ru = carried('Ракетный удар по жилому дому: погибли семь человек', {
      kind: 'missile_attack',
      dead: 7,
      city: null,
    });
    expect(similarity(featuresOf(ru), featuresOf(strikeEn))).toBeLessThan(NEWS.sameLayer);
    expect(matchSignal(withText(ru), [stored])?.event.id).toBe(stored.id);
  });

  it('keeps them apart when the toll and the city differ, or the day is far', () => {
    const stored = event('', '', { texts: [strikeEn] });
    const other = carried('Ракетный удар по порту: погибли двое', {
      kind: 'missile_attack',
      dead: 2,
      city: null,
    });
    expect(matchSignal(withText(other), [stored])).toBeNull();
    const ru = carried('Ракетный удар по жилому дому: погибли семь человек', {
      kind: 'missile_attack',
      dead: 7,
      city: null,
    });
    expect(matchSignal(withText(ru, { publishedAt: T0 + 40 * HOUR }), [stored])).toBeNull();
  });

  it('does not fold strikes on two cities on one day into one event, however alike the words', () => {
    const a = carried('Shelling kills two in Varnagrad', { kind: 'shelling', dead: 2, city: 'Varnagrad' });
    const b = carried('Shelling kills two in Ostrovets', { kind: 'shelling', dead: 2, city: 'Ostrovets' });
    expect(similarity(featuresOf(a), featuresOf(b))).toBeGreaterThan(NEWS.sameLayer);
    expect(matchSignal(withText(b), [event('', '', { texts: [a] })])).toBeNull();
  });

  it('links kinds of one family: a drone attack and a missile strike on one city', () => {
    const en = carried('Missile strike on Varnagrad apartment block', {
      kind: 'missile_attack',
      city: 'Varnagrad',
    });
    const uk = carried('Дрони атакували Варнаград: пошкоджено багатоповерхівку', {
      kind: 'drone_attack',
      city: 'Varnagrad',
    });
    expect(matchSignal(withText(uk), [event('', '', { texts: [en] })])?.event.id).toBeDefined();
    // A strike and a protest are not one happening, whatever the city.
    const protest = carried('Протест у Варнаграді', { kind: 'protest', city: 'Varnagrad' });
    expect(matchSignal(withText(protest), [event('', '', { texts: [en] })])).toBeNull();
  });

  it('does not fold a strike into a shelling of another city of one family on one day', () => {
    const a = carried('Missile strike hits Varnagrad', { kind: 'missile_attack', city: 'Varnagrad' });
    const b = carried('Shelling hits Ostrovets', { kind: 'shelling', city: 'Ostrovets' });
    expect(matchSignal(withText(b), [event('', '', { texts: [a] })])).toBeNull();
  });
});

describe('one batch, as ingest and the cross-validation link it', () => {
  it('links a Russian and an English report of one strike and keeps a front-line report apart', () => {
    const at = (h: number) => T0 + h * HOUR;
    const mk = (id: string, title: string, h: number, facts: Pick<EventText, 'kind' | 'dead' | 'city'>) => {
      const t: EventText = { ...text(title), ...facts };
      return { ...signal('placeholder', ''), id, publishedAt: at(h), text: t, features: featuresOf(t) };
    };
    const en = mk('en', 'Missile strike on Varnagrad apartment block kills 7', 0, {
      kind: 'missile_attack',
      dead: 7,
      city: 'Varnagrad',
    });
    const ru = mk('ru', 'Ракетный удар по жилому дому: погибли семь человек', 3, {
      kind: 'missile_attack',
      dead: 7,
      city: null,
    });
    const front = mk('front', 'Missile strike on Ostrovets rail depot kills 2', 2, {
      kind: 'missile_attack',
      dead: 2,
      city: 'Ostrovets',
    });
    const links = linkBatch([ru, front, en], () => [], T0);
    expect(links.events.get('ru')).toBe('en');
    expect(links.events.get('front')).toBe('front');
    expect([...links.created].sort()).toEqual(['en', 'front']);
    expect(links.joined).toBe(1);
  });
});
