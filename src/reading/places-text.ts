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
}

const COMBINING = /\p{M}/gu;
const NON_ASCII = /[^\x00-\x7f]/;
const ARABIC = /[\u0600-\u06ff]/;

/** Lower case without accents; Arabic alef, yeh and teh marbuta variants made one. */
export function fold(text: string): string {
  const lower = text.toLowerCase();
  if (!NON_ASCII.test(lower)) return lower;
  let out = lower.normalize('NFD').replace(COMBINING, '').replace(/’/g, "'");
  if (ARABIC.test(out)) out = out.replace(/[أإآٱ]/g, 'ا').replace(/ى/g, 'ي').replace(/ة/g, 'ه').replace(/ـ/g, '');
  return out;
}

/** Acronyms with dots ("U.S.", "EE.UU."), then words with inner hyphens or apostrophes. */
const WORD = /(?:\p{Lu}\.){2,}|(?:\p{Lu}{1,2}\.\s?){2}\p{Lu}{1,2}\.|[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:['’][\p{L}\p{M}]+)*/gu;
const UPPER = /^\p{Lu}/u;
const LOWER = /^\p{Ll}/u;
const POSSESSIVE = /['’]s$/i;
const BREAK = /[.!?;:()"«»“”|–—]/;

/** Splits text into words, hyphenated words into their parts ("Guinea-Bissau" → Guinea, Bissau). */
export function words(text: string): Word[] {
  const out: Word[] = [];
  for (const match of text.matchAll(WORD)) {
    let raw = match[0];
    const start = match.index;
    let possessive = false;
    if (POSSESSIVE.test(raw) && raw.length > 3) {
      raw = raw.slice(0, -2);
      possessive = true;
    } else if (/['’]$/.test(raw)) raw = raw.slice(0, -1);
    const end = start + match[0].length;
    const gap = text.slice(end, Math.min(text.length, end + 3));
    const previous = out[out.length - 1];
    if (previous && !previous.breakAfter) {
      const between = text.slice(previous.start + previous.text.length, start);
      previous.breakAfter = BREAK.test(between) || between.includes('\n');
      previous.commaAfter = between.includes(',');
    }
    out.push({
      text: raw,
      key: fold(raw),
      start,
      cap: UPPER.test(raw) || !LOWER.test(raw),
      possessive,
      breakAfter: possessive || BREAK.test(gap.slice(0, 1)),
      commaAfter: gap.startsWith(','),
    });
  }
  return out;
}

export type StemRule = 'none' | 'slavic' | 'de' | 'arabic';

/**
 * Russian and Ukrainian endings, longest first: adjective (-ский, -ського...), then noun case
 * endings. Folded like the text (й → и, ї → і, ё → е).
 */
const SLAVIC_ENDINGS = [
  ...['ского', 'скому', 'ским', 'ских', 'ской', 'ская', 'ское', 'ские', 'скую', 'ский', 'скои', 'ськоі', 'ського', 'ському', 'ським', 'ських', 'ській', 'ська', 'ське', 'ські', 'ську', 'ський'].flatMap(
    (e) => ['и' + e, 'ь' + e, e],
  ),
  'ого', 'ому', 'ими', 'ами', 'ями', 'ею', 'ою', 'ам', 'ям', 'ах', 'ях', 'ов', 'ев', 'ой', 'ей', 'ом', 'ем', 'ым', 'ых', 'ую', 'юю', 'ая', 'яя', 'ое', 'ее', 'ые', 'ью',
  'а', 'я', 'у', 'ю', 'е', 'и', 'ы', 'о', 'і', 'є', 'ь',
].map(fold);
const SLAVIC = [...new Set(SLAVIC_ENDINGS)].sort((a, b) => b.length - a.length);
const DE_ADJECTIVE = /isch(?:e|en|em|er|es)$/;
const MIN_STEM = 3;
const UKRAINIAN = /[іїєґ]/;

/**
 * The inflection-free key of a folded word. Slavic: strip one adjective or case ending
 * ("сирийских", "Сирии", "Сирия" → "сири"; only one final vowel goes, so -ия keeps its и), keeping at least three letters. German: drop a
 * genitive "s" ("Irans" → "iran") and reduce adjectives to "-isch" ("iranischen" → "iranisch"). Arabic: no change (prefixes are
 * handled by `arabicVariants`). The gazetteer applies the same rule to its names.
 */
export function stem(key: string, rule: StemRule): string {
  if (rule === 'slavic') {
    let out = key;
    for (const ending of SLAVIC)
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
