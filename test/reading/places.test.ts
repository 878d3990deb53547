import { describe, expect, it } from 'vitest';
import { locate } from '../../src/reading/locate';
import { readPlaces } from '../../src/reading/places';

const countries = (title: string, summary = '', lang: string | null = 'en') =>
  readPlaces(title, summary, lang).countries;

describe('readPlaces: what names a country', () => {
  it('a demonym gives its country', () => {
    expect(countries('Bride shot dead in attack on French wedding party')).toEqual(['FR']);
    expect(countries('Police officers charged with murder of Kenyan blogger')).toEqual(['KE']);
    expect(countries('Dozens of soldiers seized by locals in Colombian mountains')).toEqual(['CO']);
    expect(countries('Yemeni fishermen missing after storm')).toEqual(['YE']);
  });

  it('a capital gives its country and its coordinates', () => {
    const reading = readPlaces(
      'Suicide bombing at Damascus church kills 25, Syrian authorities say',
      '',
      'en',
    );
    expect(reading.countries).toEqual(['SY']);
    expect(reading.where).toBe('SY');
    expect(reading.city).toMatchObject({ name: 'Damascus', country: 'SY' });
    expect(reading.city!.lat).toBeCloseTo(33.51, 1);
    expect(reading.city!.lng).toBeCloseTo(36.29, 1);
    expect(reading.matches.find((m) => m.text === 'Damascus')).toMatchObject({
      kind: 'capital',
      role: 'where',
    });
  });

  it('a large city that is not a capital gives its country and coordinates', () => {
    const reading = readPlaces('Power cut across Kharkiv after overnight strikes', '', 'en');
    expect(reading.countries).toEqual(['UA']);
    expect(reading.city).toMatchObject({ name: 'Kharkiv', country: 'UA' });
    expect(reading.city!.lat).toBeCloseTo(49.98, 1);
  });

  it('a well-known actor stands for its country', () => {
    expect(countries('Houthis claim missile attack on cargo ship')).toEqual(['YE']);
    expect(countries('Kremlin rejects ceasefire plan')).toEqual(['RU']);
    expect(readPlaces('IDF says troops killed in ambush', '', 'en').matches[0]).toMatchObject({
      code: 'IL',
      kind: 'actor',
    });
  });

  it('acronyms match only as written: "US" is a country, "us" is not', () => {
    expect(countries('US imposes new sanctions')).toEqual(['US']);
    expect(countries('Tell us what you think about the budget')).toEqual([]);
  });
});

describe('readPlaces: states, provinces and cities', () => {
  it('a city and a state of one name both give their country: "New York"', () => {
    expect(countries('Ex-Marine charged with New York subway chokehold death')).toEqual(['US']);
    expect(countries('Shooting in Washington leaves two dead')).toEqual(['US']);
  });

  it("a first-level subdivision gives its country (CLDR's English names)", () => {
    expect(countries('Mother dies in New South Wales house fire')).toEqual(['AU']);
    expect(countries('Floods cut off villages across Uttar Pradesh')).toEqual(['IN']);
    expect(countries('Drone falls on a refinery in Krasnodar Krai', '', 'en')).toEqual(['RU']);
  });

  it('a subdivision named like a country or a people elsewhere is never read as the subdivision', () => {
    // Ethiopia's Somali region, Nigeria's Niger state, the US state of Georgia.
    expect(countries('Somali pirates seize a cargo ship off the coast')).toEqual(['SO']);
    expect(countries('Flooding in Niger displaces thousands')).toEqual(['NE']);
    expect(countries('Storm damage reported across Georgia')).toEqual([]);
  });

  it('the abbreviations English news writes for a country, a state or a city: "NZ", "NSW", "L.A."', () => {
    expect(countries('Storm cuts power to thousands across NZ')).toEqual(['NZ']);
    expect(countries('Teen charged over stabbing at NSW beach')).toEqual(['AU']);
    expect(countries('Flood warnings issued for QLD towns')).toEqual(['AU']);
    expect(countries('L.A. County reports 62 deaths')).toEqual(['US']);
    expect(countries('Subway service suspended across NYC')).toEqual(['US']);
    expect(countries('Wildfire forces evacuations in B.C. interior')).toEqual(['CA']);
    expect(countries('Scottish court rules on extradition')).toEqual(['GB']);
    expect(countries('Welsh hospital declares critical incident')).toEqual(['GB']);
    // Acronyms only as written.
    expect(countries('Where the nz of it lies')).toEqual([]);
  });

  it('a city named like a common word needs a scene word: "Delta", "Enterprise"', () => {
    expect(countries('Delta outbreak has peaked, officials say')).toEqual([]);
    expect(countries('Millions of Enterprise records exposed')).toEqual([]);
    expect(countries('Nice attack anniversary marked')).toEqual([]);
    expect(countries('Nice attack anniversary marked in France')).toEqual(['FR']);
  });

  it('a city named like a rare word is the city: "Marseille", "Bristol" (SCOWL keeps the common ones)', () => {
    expect(countries('Marseille shooting leaves two dead')).toEqual(['FR']);
    expect(countries('Bristol flats evacuated after fire')).toEqual(['GB']);
    expect(countries('Homs bombing kills 12')).toEqual(['SY']);
  });

  it('a Ukrainian name in "-ова" in its locative "-ові": "у Молдові"', () => {
    expect(countries('Енергопостачання порушено в Молдові', '', 'uk')).toEqual(['MD']);
    expect(countries('Вибухи у Харкові', '', 'uk')).toEqual(['UA']);
  });

  it('a Ukrainian city in a case without a Ukrainian letter: "Харкова"', () => {
    const title = 'Росіяни атакували дроном поруч з торгівельним центром Харкова';
    expect(readPlaces(title, '', 'uk').city).toMatchObject({ country: 'UA' });
  });
});

describe('readPlaces: Russian and Ukrainian names of cities through their romanised GeoNames name', () => {
  it('a city in any case, or its adjective, meets its Latin name', () => {
    expect(countries('Беспилотник врезался в жилой дом в Воронеже', '', 'ru')).toEqual(['RU']);
    expect(countries('В Смоленской области опровергли информацию о ракетной атаке', '', 'ru')).toEqual([
      'RU',
    ]);
    expect(readPlaces('Взрыв в Махачкале', '', 'ru').city).toMatchObject({ name: 'Makhachkala' });
  });

  it("an oblast or republic meets its English (CLDR) name's first word", () => {
    expect(countries('Вертолёт совершил жёсткую посадку в Амурской области', '', 'ru')).toEqual(['RU']);
    expect(countries('Перестрелка на границе Ингушетии', '', 'ru')).toEqual(['RU']);
  });

  it('only capitalised words, and not words that romanise to no city', () => {
    expect(countries('Курс евро превысил 102 рубля', '', 'ru')).toEqual([]);
    expect(countries('беспилотник упал в воронеже', '', 'ru')).toEqual([]);
  });
});

describe('locate: the outlet when the text names no place', () => {
  it("a story that names no place is in its outlet's country (country-code domain)", () => {
    const teen = 'Teen charged with murder of 16-year-old at beach';
    expect(locate(teen, '', 'en', 'https://www.9news.com.au/national/teen').countries).toEqual(['AU']);
    expect(locate(teen, '', 'en', 'https://www.bbc.co.uk/news/uk-1').countries).toEqual(['GB']);
  });

  it("behind an aggregator's link, the publisher's domain that ends the title", () => {
    const google = 'https://news.google.com/rss/articles/CBMi';
    const fire = 'Zwei Verletzte bei Brand in Wohnhaus';
    expect(locate(`${fire} - Lokalblatt.de`, '', 'de', google).countries).toEqual(['DE']);
    expect(locate(`${fire} - Lokalblatt`, '', 'de', google).countries).toEqual([]);
    expect(locate(`${fire} - Lokalblatt.de`, '', 'de', 'https://www.lokalblatt.at/a').countries).toEqual([
      'AT',
    ]);
  });

  it('with no outlet country, the country where most speakers of its language live', () => {
    const generic = 'https://news.example.com/a';
    expect(locate('Incendio in una scuola, evacuati 300 studenti', '', 'it', generic).countries).toEqual([
      'IT',
    ]);
    expect(locate('Пожар на складе: пострадали двое рабочих', '', 'ru', generic).countries).toEqual(['RU']);
    expect(locate('Вибух на складі: постраждали двоє робітників', '', 'uk', null).countries).toEqual(['UA']);
    expect(locate('Incêndio atinge escola e deixa feridos', '', 'pt', generic).countries).toEqual(['BR']);
    // Spoken by most people in many countries (or beyond the gazetteer's languages): no guess.
    for (const [title, lang] of [
      ['Incendie dans une école : 300 élèves évacués', 'fr'],
      ['Incendio en una escuela deja heridos', 'es'],
      ['Brand in Schule: 300 Schüler evakuiert', 'de'],
      ['Fire at school forces evacuation', 'en'],
      ['স্কুলে আগুন', 'bn'],
    ])
      expect(locate(title!, '', lang!, generic).countries).toEqual([]);
    // The outlet's domain and the places named come first.
    expect(locate('Incendio in una scuola', '', 'it', 'https://www.rsi.ch/a').countries).toEqual(['CH']);
    expect(locate('Incendio in una scuola a Parigi', '', 'it', generic).countries).toEqual(['FR']);
  });

  it('a named place wins over the outlet, and generic or vanity domains say nothing', () => {
    const link = 'https://www.stuff.co.nz/world/1';
    expect(locate('Earthquake shakes Lima', '', 'en', link).countries).toEqual(['PE']);
    expect(locate('Hackers steal data', '', 'en', 'https://example.com/a').countries).toEqual([]);
    expect(locate('Hackers steal data', '', 'en', 'https://meduza.io/a').countries).toEqual([]);
    expect(locate('Hackers steal data', '', 'en', null).countries).toEqual([]);
  });
});

describe('readPlaces: languages', () => {
  it('French "à" is a scene word, not the article it folds to: "à Paris", "à Nice"', () => {
    expect(countries('Incendie à Paris : deux morts', '', 'fr')).toEqual(['FR']);
    expect(countries('Femme agressée à Nice', '', 'fr')).toEqual(['FR']);
    expect(countries('Nice : le maire réagit', '', 'fr')).toEqual([]);
  });

  it('Spanish and Portuguese feminine demonyms: "sueca", "ucraniana", "venezolana"', () => {
    expect(countries('La policía sueca investiga el ataque', '', 'es')).toEqual(['SE']);
    expect(countries('La justicia venezolana niega la amnistía', '', 'es')).toEqual(['VE']);
    expect(countries('Escola sueca atacada', '', 'pt')).toEqual(['SE']);
    expect(countries('A força aérea ucraniana derrubou drones', '', 'pt')).toEqual(['UA']);
  });

  it('French, Spanish and Portuguese names and demonyms', () => {
    expect(countries('Séisme au Maroc : des centaines de morts', '', 'fr')).toEqual(['MA']);
    expect(countries('La Russie dit avoir détruit des navires ukrainiens', '', 'fr').sort()).toEqual([
      'RU',
      'UA',
    ]);
    expect(countries('Terremoto sacude el sur de México', '', 'es')).toEqual(['MX']);
    expect(countries('EE.UU. impone sanciones a Venezuela', '', 'es').sort()).toEqual(['US', 'VE']);
    expect(countries('Explosão em Moçambique deixa mortos', '', 'pt')).toEqual(['MZ']);
    expect(countries('Oposição venezuelana denuncia prisões', '', 'pt')).toEqual(['VE']);
  });

  it('CLDR\'s names in regional variants and short forms: Brazilian "Irã", "Stati Uniti"', () => {
    expect(countries('Irã e Omã discutem retomada de negociações', '', 'pt').sort()).toEqual(['IR', 'OM']);
    expect(countries('Trump diz que Irão não está pronto', '', 'pt')).toContain('IR');
    expect(countries('Vietnã registra enchentes', '', 'pt')).toEqual(['VN']);
    expect(countries('Tempesta negli Stati Uniti', '', 'it')).toEqual(['US']);
    expect(countries('Повінь у Туркменістані', '', 'uk')).toEqual(['TM']);
    // A CLDR name that is another country's city is not that country: Salvador (Bahia) is no El Salvador.
    expect(countries('Chuva forte alaga ruas de Salvador', '', 'pt')).not.toContain('SV');
  });

  it('German genitive and adjective forms', () => {
    expect(countries('Syriens Übergangsregierung trifft iranische Delegation', '', 'de')).toEqual([
      'SY',
      'IR',
    ]);
    expect(countries('Musk mischt sich in deutschen Wahlkampf ein', '', 'de')).toEqual(['DE']);
    expect(readPlaces('Anschlag auf Weihnachtsmarkt in Magdeburg', '', 'de').city?.name).toBe('Magdeburg');
    expect(countries('Nordsyrien: Gefechte zwischen Milizen', '', 'de')).toEqual(['SY']);
    expect(countries('Drohnen über Zentralrussland', '', 'de')).toEqual(['RU']);
  });

  it('Russian and Ukrainian case endings and adjectives', () => {
    expect(countries('Удар по Харькову: погибли пять человек', '', 'ru')).toEqual(['UA']);
    expect(countries('В Сирии задержали группу боевиков', '', 'ru')).toEqual(['SY']);
    expect(countries('Сирийских беженцев вернут домой', '', 'ru')).toEqual(['SY']);
    expect(readPlaces('Вибухи у Києві: працює ППО', '', 'uk').city?.name).toBe('Kyiv');
    expect(countries('Уночі область атакували російські дрони', '', 'uk')).toEqual(['RU']);
    expect(countries('Зустріч у Харкові', '', 'uk')).toEqual(['UA']);
    expect(countries('Американские сенаторы прилетели в Белоруссию', '', 'ru').sort()).toEqual(['BY', 'US']);
    // A short stem met in lower case is another word: "дате" (date) is not датский (Danish).
    expect(countries('Договорились о дате встречи', '', 'ru')).toEqual([]);
  });

  it('Arabic with and without the article and glued prepositions', () => {
    expect(countries('انفجار في بغداد', '', 'ar')).toEqual(['IQ']);
    expect(countries('غارات على السودان', '', 'ar')).toEqual(['SD']);
    expect(countries('اشتباكات عنيفة بالخرطوم', '', 'ar')).toEqual(['SD']);
    expect(countries('وفد سوداني يصل إلى القاهرة', '', 'ar')).toEqual(['EG', 'SD']);
    expect(countries('الجيش السوري يعلن السيطرة على بلدة', '', 'ar')).toEqual(['SY']);
  });

  it('Dutch and Italian country names', () => {
    expect(countries('Tunesië weigert delegatie Europees Parlement toegang tot het land', '', 'nl')).toEqual([
      'TN',
    ]);
    expect(countries('Terremoto in Grecia, danni e feriti', '', 'it')).toEqual(['GR']);
  });

  it('Italian demonyms in every gender and number: "russo", "ucraini", "tedesche"', () => {
    expect(countries('Condannato il dissidente russo', '', 'it')).toEqual(['RU']);
    expect(countries('Militari ucraini morti durante la controffensiva', '', 'it')).toEqual(['UA']);
    expect(countries('Le autorità tedesche indagano', '', 'it')).toEqual(['DE']);
    expect(countries('Il premier giapponese portato in salvo', '', 'it')).toEqual(['JP']);
  });

  it('an unknown language tries every table', () => {
    expect(countries('Explosion à Kaboul', '', null)).toEqual(['AF']);
    expect(countries('Взрыв в Кабуле', '', null)).toEqual(['AF']);
  });
});

describe('readPlaces: ambiguous names', () => {
  it('a name that is also a first name or surname needs a scene word', () => {
    expect(countries('Chad Smith wins award')).toEqual([]);
    expect(countries('Michael Jordan buys basketball team')).toEqual([]);
    expect(countries('Clashes in Chad leave 12 dead')).toEqual(['TD']);
    expect(countries('Clashes In Chad Leave 12 Dead')).toEqual(['TD']);
    expect(countries('Protests spread in Tbilisi and across Georgia')).toEqual(['GE']);
    // Georgia is also a US state: a scene word alone does not tell which.
    expect(countries('Storms cause damage in Georgia')).toEqual([]);
  });

  it('an ambiguous name counts when the country is named another way too', () => {
    expect(countries('Jordan says it intercepted drones over Amman')).toEqual(['JO']);
  });

  it("another language's name that is an English word stays a word in English", () => {
    expect(countries('Storm batters Island communities')).toEqual([]);
    expect(countries('Sturm über Island', '', 'de')).toEqual(['IS']);
    expect(countries('Vladimir Nabokov novel reissued', '', 'en')).toEqual([]);
  });

  it("a one-word city glued to a capitalised word is a person's name", () => {
    expect(countries("Authorities want Kobe Bryant's widow to take an exam")).toEqual([]);
    expect(countries('Flooding in Kobe forces evacuations')).toEqual(['JP']);
  });

  it('a one-word city after a given name or a capitalised word inside a sentence is a surname', () => {
    expect(countries('Quarterback Chad Henderson signs new contract')).toEqual([]);
    expect(countries('Jordan Henderson and Chad Smith met in Georgia')).toEqual([]);
    expect(countries('The referee showed defender Tyrese Fresno a second yellow card')).toEqual([]);
    // A scene word, a compass point or a word that only starts the sentence leave it a place.
    expect(countries('Gunman opens fire in a North Henderson mall')).toEqual(['US']);
    expect(countries('After Henderson shooting, police appeal for witnesses')).toEqual(['US']);
    // Russian and Ukrainian capitalise the adjective of a town's region: two places, no name.
    expect(countries('Взрыв прогремел в Балаклее Харьковской области', '', 'ru')).toEqual(['UA']);
  });

  it('a hyphen between spaces ends a name like a dash: "Lyon - Gazette"', () => {
    expect(countries('Second night of riots in Lyon - Gazette')).toEqual(['FR']);
  });

  it('a city followed by a US state is in the US: "Paris, Texas"', () => {
    const reading = readPlaces('Floods hit Paris, Texas', '', 'en');
    expect(reading.countries).toEqual(['US']);
    expect(reading.city).toBeNull();
  });

  it('the longest name wins: "New Mexico" is a US state', () => {
    expect(countries('Wildfire spreads in New Mexico')).toEqual(['US']);
  });

  it('lower-case words are not names', () => {
    expect(countries('Roast turkey prices soar before the holidays')).toEqual([]);
    expect(countries('Удар по Харькову', '', 'ru')).toEqual(['UA']);
    expect(countries('чад от пожара накрыл город', '', 'ru')).toEqual([]);
  });
});

describe('readPlaces: where it happens and who is kept', () => {
  it('both sides of a strike are kept, the struck place first', () => {
    const reading = readPlaces("Israel says it struck Tehran's Evin prison", '', 'en');
    expect(reading.where).toBe('IR');
    expect(reading.countries).toEqual(['IR', 'IL']);
  });

  it('a place used as a modifier ("Iran-backed") is mentioned when a subject is named', () => {
    const reading = readPlaces('Iran-backed Houthis attack tanker', '', 'en');
    expect(reading.countries).toEqual(['YE']);
    expect(reading.mentioned).toEqual(['IR']);
    expect(countries('Iran-backed militia claims attack')).toEqual(['IR']);
  });

  it('countries named only in the summary of a titled place are mentioned, not kept', () => {
    const reading = readPlaces(
      'Nato summit in Brussels weighs defence spending',
      'Leaders will also discuss Iran and the war in Ukraine.',
      'en',
    );
    expect(reading.countries).toEqual(['BE']);
    expect(reading.mentioned).toEqual(['IR', 'UA']);
    expect(reading.matches.find((m) => m.code === 'IR')?.role).toBe('mentioned');
  });

  it('a title with no place takes the scene from the summary', () => {
    const reading = readPlaces(
      'Dozens killed as floods sweep villages',
      'Rescuers in Pakistan search for survivors.',
      'en',
    );
    expect(reading.countries).toEqual(['PK']);
    expect(reading.where).toBe('PK');
  });

  it('match offsets point into title + newline + summary', () => {
    const title = 'Quake hits Peru';
    const summary = 'Buildings collapsed in Lima.';
    const reading = readPlaces(title, summary, 'en');
    for (const match of reading.matches) {
      expect(`${title}\n${summary}`.slice(match.start, match.start + match.text.length)).toBe(match.text);
    }
    expect(reading.city?.name).toBe('Lima');
  });
});

describe('readPlaces: bounded work', () => {
  it('reads a very long text without error and keeps the first places', () => {
    const long = 'Fighting in Sudan. '.concat('word '.repeat(50_000));
    expect(countries(long)).toEqual(['SD']);
  });
});
