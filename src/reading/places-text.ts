/**
 * Word-level text handling shared by the place reader and the gazetteer build: one fold, one
 * tokenizer and one inflection rule per language, so a name in the data and a word in the news
 * reduce to the same key.
 */

export interface Word {
  /** The word as written (possessive "'s" removed). */
  text: string;
  /** Folded: lower case, no accents or Arabic vowel marks, one spelling of alef/yeh/teh marbuta. */
  key: string;
  start: number;
  /** Starts with an upper-case letter (scripts without case count as capitalised). */
  cap: boolean;
  /** Written "Tehran's" / "Kyiv’s". */
  possessive: boolean;
  /** Punctuation (not a space or hyphen) separates it from the next word. */
  breakAfter: boolean;
  /** The punctuation right after it, when it is a comma. */
  commaAfter: boolean;
  /** Joined to the next word by a hyphen ("Iran-backed"). */
  hyphenAfter: boolean;
}

const COMBINING = /\p{M}/gu;
const NON_ASCII = /[^\x00-\x7f]/;
const ARABIC = /[\u0600-\u06ff]/;

/**
 * Folds of non-ASCII words, kept because news repeats its words and NFD is the costly step;
 * cleared when full, so memory stays bounded. Pure values: safe to share across requests.
 */
const folded = new Map<string, string>();
const FOLD_CACHE_MAX = 20_000;

/** Lower case without accents; Arabic alef, yeh and teh marbuta variants made one. */
export function fold(text: string): string {
  const lower = text.toLowerCase();
  if (!NON_ASCII.test(lower)) return lower;
  let out = folded.get(lower);
  if (out === undefined) {
    out = foldUnicode(lower);
    if (folded.size >= FOLD_CACHE_MAX) folded.clear();
    folded.set(lower, out);
  }
  return out;
}

function foldUnicode(lower: string): string {
  let out = lower.normalize('NFD').replace(COMBINING, '').replace(/’/g, "'");
  if (ARABIC.test(out))
    out = out
      .replace(/[أإآٱ]/g, 'ا')
      .replace(/ى/g, 'ي')
      .replace(/ة/g, 'ه')
      .replace(/ـ/g, '');
  return out;
}

/** Acronyms with dots ("U.S.", "EE.UU.", "EE. UU."), then words with inner hyphens or apostrophes. */
const WORD = /(?:\p{Lu}{1,2}\.\s?){2,}(?<!\s)|[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:['’][\p{L}\p{M}]+)*/gu;
const UPPER = /^\p{Lu}/u;
const LOWER = /^\p{Ll}/u;

/** Splits text into words, hyphenated words into their parts ("Guinea-Bissau" → Guinea, Bissau). */
export function words(text: string): Word[] {
  const out: Word[] = [];
  let previous: Word | undefined;
  let previousEnd = 0;
  for (const match of text.matchAll(WORD)) {
    let raw = match[0];
    const start = match.index;
    if (previous) markGap(previous, text, previousEnd, start);
    let possessive = false;
    const last = raw.charCodeAt(raw.length - 1);
    if ((last === 115 || last === 83) && raw.length > 3 && isApostrophe(raw.charCodeAt(raw.length - 2))) {
      raw = raw.slice(0, -2);
      possessive = true;
    }
    previous = {
      text: raw,
      key: fold(raw),
      start,
      cap: UPPER.test(raw) || !LOWER.test(raw),
      possessive,
      breakAfter: possessive,
      commaAfter: false,
      hyphenAfter: false,
    };
    out.push(previous);
    previousEnd = start + match[0].length;
  }
  if (previous) markGap(previous, text, previousEnd, text.length);
  return out;
}

const isApostrophe = (code: number): boolean => code === 39 || code === 0x2019;
/**
 * . ! ? ; : ( ) " « » “ ” | – — and line breaks end a name; a comma is noted. So does a hyphen
 * with a space beside it, a dash typed as a hyphen ("Lille - BFM", "2023 - Новости").
 */
const BREAKS = new Set([...'.!?;:()"«»“”|–—\n\r'].map((c) => c.charCodeAt(0)));

function markGap(word: Word, text: string, from: number, to: number): void {
  if (to === from + 1 && text.charCodeAt(from) === 45) word.hyphenAfter = true;
  else if (to > from + 1 && text.slice(from, to).includes('-')) word.breakAfter = true;
  for (let k = from; k < to; k++) {
    const code = text.charCodeAt(k);
    if (code === 44) word.commaAfter = true;
    else if (BREAKS.has(code)) word.breakAfter = true;
  }
}

export type StemRule = 'none' | 'slavic' | 'de' | 'arabic';

/**
 * Russian and Ukrainian endings, longest first: adjective (-ский, -ського...), then noun case
 * endings. Folded like the text (й → и, ї → і, ё → е).
 */
const SLAVIC_ENDINGS = [
  ...[
    'ского',
    'скому',
    'ским',
    'ских',
    'ской',
    'ская',
    'ское',
    'ские',
    'скую',
    'ский',
    'скои',
    'ськоі',
    'ського',
    'ському',
    'ським',
    'ських',
    'ській',
    'ська',
    'ське',
    'ські',
    'ську',
    'ський',
  ].flatMap((e) => ['и' + e, 'ь' + e, e]),
  'ого',
  'ому',
  'ими',
  'ами',
  'ями',
  'ею',
  'ою',
  'ам',
  'ям',
  'ах',
  'ях',
  'ов',
  'ев',
  'ой',
  'ей',
  'ом',
  'ем',
  'ым',
  'ых',
  'ую',
  'юю',
  'ая',
  'яя',
  'ое',
  'ее',
  'ые',
  'ью',
  'а',
  'я',
  'у',
  'ю',
  'е',
  'и',
  'ы',
  'о',
  'і',
  'є',
  'ь',
].map(fold);
/** Endings by their last letter, longest first: one short list to try per word. */
const SLAVIC = new Map<string, string[]>();
for (const ending of [...new Set(SLAVIC_ENDINGS)].sort((a, b) => b.length - a.length)) {
  const last = ending[ending.length - 1]!;
  SLAVIC.set(last, [...(SLAVIC.get(last) ?? []), ending]);
}
const DE_ADJECTIVE = /isch(?:e|en|em|er|es)$/;
const MIN_STEM = 3;
/** A letter only Ukrainian writes (Russian has none of them). */
export const UKRAINIAN = /[іїєґ]/;

/**
 * The inflection-free key of a folded word. Slavic: strip one adjective or case ending
 * ("сирийских", "Сирии", "Сирия" → "сири"; only one final vowel goes, so -ия keeps its и), keeping at least three letters. German: drop a
 * genitive "s" ("Irans" → "iran") and reduce adjectives to "-isch" ("iranischen" → "iranisch"). Arabic: no change (prefixes are
 * handled by `arabicVariants`). The gazetteer applies the same rule to its names.
 */
export function stem(key: string, rule: StemRule): string {
  if (rule === 'slavic') {
    let out = key;
    for (const ending of SLAVIC.get(key[key.length - 1] ?? '') ?? [])
      if (key.length - ending.length >= MIN_STEM && key.endsWith(ending)) {
        out = key.slice(0, -ending.length);
        break;
      }
    // Ukrainian "і" of a closed last syllable opens in other cases: Київ/Києві, Харків/Харкові.
    return UKRAINIAN.test(key) ? out.replace(/(?:[оеє])в$/, 'ів') : out;
  }
  if (rule === 'de') {
    if (DE_ADJECTIVE.test(key)) return key.slice(0, key.lastIndexOf('isch') + 4);
    return key.length >= 5 && key.endsWith('s') ? key.slice(0, -1) : key;
  }
  return key;
}

/**
 * Arabic words carry clitics: "و" (and), "ف", "ب" (in), "ل" (to), "ك" and the article "ال".
 * Forms to try, longest first: the word, without a conjunction, without a preposition, without
 * the article ("وبالسودان" → "بالسودان", "بالسودان" → "السودان" → "سودان").
 */
export function arabicVariants(key: string): string[] {
  const out = [key];
  let rest = key;
  if (/^[وف]/.test(rest) && rest.length > 3) out.push((rest = rest.slice(1)));
  if (rest.startsWith('لل') && rest.length > 4) out.push((rest = 'ال' + rest.slice(2)));
  else if (/^[بلك]/.test(rest) && rest.length > 3) out.push((rest = rest.slice(1)));
  if (rest.startsWith('ال') && rest.length > 4) out.push(rest.slice(2));
  return out;
}

/**
 * Cyrillic letters in Latin, one scheme for Russian and Ukrainian (BGN/PCGN and the Ukrainian
 * national one agree on most). The linker's words (src/events/text.ts) use it with six letters of
 * the national scheme.
 */
export const CYRILLIC_LATIN: Readonly<Record<string, string>> = {
  а: 'a',
  б: 'b',
  в: 'v',
  г: 'g',
  ґ: 'g',
  д: 'd',
  е: 'e',
  ё: 'e',
  є: 'e',
  ж: 'zh',
  з: 'z',
  и: 'i',
  і: 'i',
  ї: 'i',
  й: 'y',
  к: 'k',
  л: 'l',
  м: 'm',
  н: 'n',
  о: 'o',
  п: 'p',
  р: 'r',
  с: 's',
  т: 't',
  у: 'u',
  ф: 'f',
  х: 'x',
  ц: 'ts',
  ч: 'ch',
  ш: 'sh',
  щ: 'shch',
  ъ: '',
  ы: 'y',
  ь: '',
  э: 'e',
  ю: 'yu',
  я: 'ya',
  "'": '',
  '’': '',
};

/**
 * The Latin skeleton of a name, for meeting a Cyrillic word with the GeoNames (romanised) name of
 * its city: "Воронеж" and "Voronezh", "Київ" and "Kyiv", "Луганск" and "Luhansk" reduce alike.
 * What romanisations disagree on is dropped or merged: y and j (и/ы/й, я = ya), soft signs and
 * apostrophes, h and g (Ukrainian г), "kh" and x (х).
 * @example latinSkeleton('Рязань') === latinSkeleton('Ryazan’') // true
 */
export function latinSkeleton(text: string): string {
  const lower = text.toLowerCase();
  let out = '';
  if (CYRILLIC.test(lower)) for (const ch of lower) out += CYRILLIC_LATIN[ch] ?? ch;
  else out = lower.normalize('NFD').replace(COMBINING, '');
  return out
    .replace(/kh/g, 'x')
    .replace(/h/g, 'g')
    .replace(/[yj'’ʹ`]/g, '');
}
/** Any Cyrillic letter. */
export const CYRILLIC = /[\u0400-\u04ff]/;
