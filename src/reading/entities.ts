/**
 * Named-entity extraction for ingested signals (word lists: data/en/entities.json): deterministic, rule-based and dependency-free,
 * so it runs identically in Node and on Cloudflare Workers at thousands of texts per batch.
 *
 * How it works:
 * 1. The text is split into word tokens and sentences. Sentences written in Title Case or ALL
 *    CAPS (headlines) carry no reliable capitalisation signal, so only step 2 applies to them.
 * 2. Gazetteer: longest match against well-known organisations (UN, NATO, WHO, IMF, central
 *    banks, large companies...) and the place gazetteer of src/reading (every country name and
 *    alias such as US, UK, DRC, filed under the country's short name; capitals and large cities;
 *    seas and regions), so entities and country codes agree. Matching ignores accents; acronyms must
 *    match case exactly so "US" is a country but "us" is not.
 * 3. Other runs of capitalised words (joined by "of", "de", "bin", "al-"...) are classified by
 *    cues, first rule wins:
 *    - a title inside the run (President, Prime Minister, Gen., Dr., CEO...) → the words after
 *      it are a person, title dropped; words before it may be an organisation ("NATO", "Central Bank");
 *    - an organisation keyword (Ministry, Agency, Bank, Forces, Party, Inc, Group...) → organisation;
 *    - a place keyword (Province, Region, River, Strait... or Port/Mount/Lake in front) → location;
 *    - a known first name, a role word before it ("spokesman", "commander") or "said" after a
 *      two- or three-word name → person;
 *    - after "in", "near", "from", "outside", "around" → location;
 *    - a lone upper-case acronym (RSF, CISA) → organisation.
 *    Anything else is dropped: precision matters more than recall for clustering and search.
 * 4. Stop words (The, However, Monday, March...) never start or extend an entity, and an
 *    unexplained capitalised word at the start of a sentence is ignored.
 * 5. Mentions are merged case- and accent-insensitively. A lone surname ("Osman said") counts
 *    towards the full name seen in the same text ("Gen. Tarek Osman"). Results are sorted by
 *    count descending then name, capped at 20.
 */
import lists from './data/en/entities.json';
import { englishPlaceNames } from './places';
import { fold } from './places-text';
import type { EntityType } from '../vocab';

export interface ExtractedEntity {
  name: string;
  type: EntityType;
  count: number;
}

const MAX_ENTITIES = 20;
const MAX_PERSON_NAME_WORDS = 4;
/**
 * How far past a position any rule looks: no name runs longer, and bounding every look-ahead
 * by it keeps extraction linear in the text's length (an unbounded run of capitalised words
 * used to be rescanned from each of its words: quadratic).
 */
const MAX_RUN_TOKENS = 32;

/** Tokens examined by the last `extractEntities` call, summed over every loop (see `extractionWork`). */
let work = 0;

/**
 * The work of the last `extractEntities` call: tokens examined, summed over every loop. Stays
 * within a constant times the number of tokens; tests check that on hostile input.
 */
export const extractionWork = (): number => work;

const set = (list: readonly string[]): ReadonlySet<string> => new Set(list);

const ORGANIZATIONS: Record<string, string[]> = lists.organizations;
const TITLES = set(lists.titles);
const PERSON_CUES_BEFORE = set(lists.personCuesBefore);
const PERSON_CUES_AFTER = set(lists.personCuesAfter);
const ORG_KEYWORDS = set(lists.orgKeywords);
const PLACE_SUFFIXES = set(lists.placeSuffixes);
const PLACE_PREFIXES = set(lists.placePrefixes);
const HYPHEN_MODIFIERS = set(lists.hyphenModifiers);
const LOCATION_PREPOSITIONS = set(lists.locationPrepositions);
const STOP_WORDS = set(lists.stopWords);
const MINOR_WORDS = set(lists.minorWords);
const JOINERS = set(lists.joiners);
const NAME_PARTICLES = set(lists.nameParticles);
const ACRONYM_STOP_WORDS = set(lists.acronymStopWords);
const FIRST_NAMES = set(lists.firstNames);

interface GazetteerEntry {
  keys: string[];
  capitalised: boolean[];
  possessive: boolean[];
  exact: string[] | null;
  name: string;
  type: EntityType;
}

interface Token {
  text: string;
  key: string;
  word: boolean;
  cap: boolean;
  /** A possessive or a hyphenated modifier ("Iran-backed"): an entity may end here, not continue. */
  closes: boolean;
  sentenceStart: boolean;
}

interface Sentence {
  start: number;
  end: number;
  headline: boolean;
}

/** Letters of space-separated scripts: Han, kana, Hangul and Thai text has no word boundaries to use. */
const WORD_CHAR = String.raw`(?:(?![\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\p{sc=Thai}])[\p{L}\p{M}])`;
const TOKEN_PATTERN = new RegExp(
  [
    String.raw`(?:\p{Lu}\.){2,}`,
    String.raw`(?:Gen|Lt|Col|Maj|Capt|Sgt|Cpl|Adm|Brig|Cmdr|Gov|Sen|Rep|Pres|Prof|Dr|Mr|Mrs|Ms|Rev|Sr|Jr|St|Mt|Ft|Supt|Insp|Amb|Hon|Inc|Corp|Ltd|Co|No)\.`,
    String.raw`\p{Lu}\.(?=\s*\p{Lu})`,
    String.raw`${WORD_CHAR}(?:${WORD_CHAR}|\p{N})*(?:['’\-](?:${WORD_CHAR}|\p{N})+)*`,
    String.raw`\p{N}+(?:[.,:]\p{N}+)*`,
    String.raw`[.!?]+|[\r\n]+|&|[^\s]`,
  ].join('|'),
  'gu',
);
const SENTENCE_END = /^(?:[.!?]+|[\r\n]+|:)$/;
const LETTER = /\p{L}/u;
const UPPER_START = /^\p{Lu}/u;
const PARTICLE_NAME = /^(?:al|el|ad|ash|bin|ibn|abu|ben)-\p{Lu}/u;
const ACRONYM = /^\p{Lu}[\p{Lu}\p{N}]{1,5}$/u;
const DEMONYM_ENDING = /(?:ian|ean|ese|ish)$/;
const ALL_UPPER_WORD = /^[\p{Lu}\p{N}.&'’-]+$/u;
const POSSESSIVE = /^(.+?)['’]s$|^(.+s)['’]$/u;
const SENTENCE_START_FILLER = /(?:ly|ing)$/;

function makeToken(raw: string): Token {
  if (!LETTER.test(raw[0] ?? '')) {
    return { text: raw, key: raw, word: false, cap: false, closes: false, sentenceStart: false };
  }
  let text = raw;
  let closes = false;
  const possessive = POSSESSIVE.exec(text);
  const owner = possessive?.[1] ?? possessive?.[2];
  if (owner && owner.length > 1) {
    text = owner;
    closes = true;
  }
  const hyphen = text.lastIndexOf('-');
  if (hyphen > 0 && UPPER_START.test(text) && HYPHEN_MODIFIERS.has(text.slice(hyphen + 1).toLowerCase())) {
    text = text.slice(0, hyphen);
    closes = true;
  }
  const cap = UPPER_START.test(text) || PARTICLE_NAME.test(text);
  return { text, key: fold(text), word: true, cap, closes, sentenceStart: false };
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let atSentenceStart = true;
  // The matched strings only: a match object per token was a tenth of what an ingest batch allocates.
  for (const word of text.match(TOKEN_PATTERN) ?? []) {
    work++;
    const token = makeToken(word);
    if (token.word) {
      token.sentenceStart = atSentenceStart;
      atSentenceStart = false;
    } else if (SENTENCE_END.test(token.text)) {
      atSentenceStart = true;
    }
    tokens.push(token);
  }
  return tokens;
}

function splitSentences(tokens: Token[]): Sentence[] {
  const sentences: Sentence[] = [];
  let start = 0;
  for (let i = 0; i <= tokens.length; i++) {
    work++;
    const token = tokens[i];
    if (token && !(token.word && token.sentenceStart && i > start)) continue;
    if (i > start) sentences.push({ start, end: i, headline: isHeadline(tokens, start, i) });
    start = i;
  }
  return sentences;
}

/** Title Case and ALL CAPS sentences: capitalisation says nothing about names there. */
function isHeadline(tokens: Token[], start: number, end: number): boolean {
  let capitalised = 0;
  let lowerContent = 0;
  let allUpper = 0;
  for (let i = start; i < end; i++) {
    work++;
    const token = tokens[i];
    if (!token?.word) continue;
    if (token.cap) capitalised++;
    else if (!MINOR_WORDS.has(token.key)) lowerContent++;
    if (token.text.length > 1 && ALL_UPPER_WORD.test(token.text)) allUpper++;
  }
  return lowerContent === 0 && (capitalised >= 4 || (allUpper >= 3 && allUpper === capitalised));
}

let gazetteerIndex: Map<string, GazetteerEntry[]> | undefined;
/** Built on first use: keeps module start-up (Workers cold start) cheap. */
const gazetteer = (): Map<string, GazetteerEntry[]> => (gazetteerIndex ??= buildGazetteer());

function buildGazetteer(): Map<string, GazetteerEntry[]> {
  const index = new Map<string, GazetteerEntry[]>();
  const add = (alias: string, name: string, type: EntityType): void => {
    const tokens = tokenize(alias).filter((t) => t.word);
    const first = tokens[0];
    if (!first) return;
    const acronym = tokens.length === 1 && alias.length <= 6 && ALL_UPPER_WORD.test(alias);
    const entry: GazetteerEntry = {
      keys: tokens.map((t) => t.key),
      capitalised: tokens.map((t) => t.cap),
      possessive: tokens.map((t) => t.closes),
      exact: acronym ? tokens.map((t) => t.text) : null,
      name,
      type,
    };
    const bucket = index.get(first.key) ?? [];
    bucket.push(entry);
    index.set(first.key, bucket);
  };
  for (const [name, aliases] of Object.entries(ORGANIZATIONS)) {
    for (const alias of [name, ...aliases]) add(alias, name, 'organization');
  }
  for (const place of englishPlaceNames()) add(place.alias, place.name, 'location');
  for (const bucket of index.values()) bucket.sort((a, b) => b.keys.length - a.keys.length);
  return index;
}

function matchGazetteer(tokens: Token[], at: number, end: number): GazetteerEntry | null {
  const first = tokens[at];
  if (!first?.word) return null;
  for (const entry of gazetteer().get(first.key) ?? []) {
    if (matchesEntry(tokens, at, end, entry)) return entry;
  }
  return null;
}

function matchesEntry(tokens: Token[], at: number, end: number, entry: GazetteerEntry): boolean {
  const length = entry.keys.length;
  if (at + length > end) return false;
  for (let j = 0; j < length; j++) {
    work++;
    const token = tokens[at + j];
    if (!token?.word || token.key !== entry.keys[j]) return false;
    if (entry.exact ? token.text !== entry.exact[j] : (entry.capitalised[j] || j === 0) && !token.cap)
      return false;
    if (token.closes && j < length - 1 && !entry.possessive[j]) return false;
  }
  return true;
}

const isTitle = (token: Token | undefined): boolean =>
  !!token?.word && token.cap && (TITLES.has(token.key) || PERSON_CUES_BEFORE.has(token.key));
const isOrgKeyword = (token: Token | undefined): boolean =>
  !!token?.word && token.cap && ORG_KEYWORDS.has(token.key);
const isRunWord = (token: Token | undefined): boolean =>
  !!token?.word && token.cap && !STOP_WORDS.has(token.key);
const isNameWord = (token: Token | undefined): boolean =>
  isRunWord(token) && !isTitle(token) && !isOrgKeyword(token) && !PLACE_SUFFIXES.has(token?.key ?? '');
const isNameParticle = (token: Token | undefined): boolean =>
  !!token?.word && !token.cap && NAME_PARTICLES.has(token.key);

/** Length of the run of capitalised words starting at `at`, joined by "of", "de", "bin"... */
function runLength(tokens: Token[], at: number, end: number): number {
  let j = at;
  let hasOrgKeyword = false;
  let orgWithOf = false;
  while (j < end) {
    work++;
    const token = tokens[j];
    if (isRunWord(token)) {
      hasOrgKeyword ||= isOrgKeyword(token);
      j++;
      if (token?.closes) break;
      continue;
    }
    const next = j > at ? joinedWordAfter(tokens, j, end) : -1;
    if (next < 0 || !token) break;
    if (isConjunction(token)) {
      // "Ministry of Trade and Industry" is one name; "the Army and the Police" are two.
      const mayJoin = token.text === '&' || orgWithOf;
      if (!mayJoin || !isNameTail(tokens, next, end)) break;
    } else if (hasOrgKeyword && (token.key === 'of' || token.key === 'for')) {
      orgWithOf = true;
    }
    j = next;
  }
  return j - at;
}

const isConjunction = (token: Token): boolean => token.key === 'and' || token.text === '&';

/** Index of the capitalised word reached through joiners at `at`, or -1 when the run stops here. */
function joinedWordAfter(tokens: Token[], at: number, end: number): number {
  let j = at;
  for (let hops = 0; hops < 2 && j < end; hops++, j++) {
    work++;
    const token = tokens[j];
    if (!token || token.cap) return -1;
    const joins =
      (token.word && JOINERS.has(token.key)) ||
      (token.key === 'the' && ['of', 'for'].includes(tokens[j - 1]?.key ?? '')) ||
      isConjunction(token);
    if (!joins) return -1;
    if (isRunWord(tokens[j + 1])) return j + 1;
  }
  return -1;
}

/** A short tail after "and" with no organisation keyword or known name of its own. */
function isNameTail(tokens: Token[], from: number, end: number): boolean {
  if (matchGazetteer(tokens, from, end)) return false;
  for (let j = from; j < end && isRunWord(tokens[j]); j++) {
    work++;
    if (isOrgKeyword(tokens[j])) return false;
  }
  return true;
}

const displayName = (tokens: Token[], from: number, to: number): string =>
  tokens
    .slice(from, to)
    .map((t) => t.text)
    .join(' ')
    .replace(/(?<!\b\p{Lu})\.$/u, '');

class Collector {
  private readonly mentions = new Map<string, ExtractedEntity>();
  private readonly looseWords: string[] = [];
  private readonly guessedPlaces: string[] = [];

  add(name: string, type: EntityType): void {
    const clean = name.replace(/\s+/g, ' ').trim();
    if (clean.length < 2) return;
    const key = `${type}|${fold(clean)}`;
    const existing = this.mentions.get(key);
    if (existing) existing.count++;
    else this.mentions.set(key, { name: clean, type, count: 1 });
  }

  /** A lone capitalised word: kept only if it turns out to be the surname of a person in the text. */
  addLooseWord(word: string): void {
    this.looseWords.push(fold(word));
  }

  /** A one-word place inferred from "in/from X": may still be a person's surname. */
  addGuessedPlace(word: string): void {
    this.add(word, 'location');
    this.guessedPlaces.push(fold(word));
  }

  result(): ExtractedEntity[] {
    this.mergeSurnames();
    return [...this.mentions.values()]
      .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .slice(0, MAX_ENTITIES);
  }

  private mergeSurnames(): void {
    const bySurname = new Map<string, ExtractedEntity | null>();
    for (const mention of this.mentions.values()) {
      if (mention.type !== 'person' || !mention.name.includes(' ')) continue;
      const surname = fold(mention.name.slice(mention.name.lastIndexOf(' ') + 1));
      bySurname.set(surname, bySurname.has(surname) ? null : mention);
    }
    for (const [key, mention] of this.mentions) {
      const full = mention.type === 'person' ? bySurname.get(fold(mention.name)) : undefined;
      if (!full) continue;
      full.count += mention.count;
      this.mentions.delete(key);
    }
    for (const word of this.looseWords) {
      const full = bySurname.get(word);
      if (full) full.count++;
    }
    for (const word of this.guessedPlaces) {
      const full = bySurname.get(word);
      const place = this.mentions.get(`location|${word}`);
      if (!full || !place) continue;
      full.count++;
      if (--place.count === 0) this.mentions.delete(`location|${word}`);
    }
  }
}

/** Extracts people, organisations and locations from English news text (see the file header for the rules). */
export function extractEntities(text: string): ExtractedEntity[] {
  if (!text || !text.trim()) return [];
  work = 0;
  const tokens = tokenize(text);
  const collector = new Collector();
  for (const sentence of splitSentences(tokens)) {
    scanSentence(tokens, sentence, collector);
  }
  return collector.result();
}

function scanSentence(tokens: Token[], sentence: Sentence, out: Collector): void {
  let i = sentence.start;
  while (i < sentence.end) {
    work++;
    const token = tokens[i];
    // Every rule below looks at most MAX_RUN_TOKENS ahead of `i`: linear in the sentence.
    const end = Math.min(sentence.end, i + MAX_RUN_TOKENS);
    const entry = token?.word ? matchGazetteer(tokens, i, end) : null;
    if (sentence.headline || !token?.cap || (STOP_WORDS.has(token.key) && !entry)) {
      if (entry && !shadowsFirstName(tokens, i, entry, end)) {
        out.add(entry.name, entry.type);
        i += entry.keys.length;
      } else {
        i++;
      }
      continue;
    }
    i += classifyRun(tokens, i, end, entry, out);
  }
}

/** "Chad Morgan", "Sofia Petrova": a one-word place that is also a first name, followed by a name. */
function shadowsFirstName(tokens: Token[], at: number, entry: GazetteerEntry, end: number): boolean {
  const next = tokens[at + 1];
  return (
    entry.type === 'location' &&
    entry.keys.length === 1 &&
    FIRST_NAMES.has(entry.keys[0] ?? '') &&
    at + 1 < end &&
    isNameWord(next) &&
    !matchGazetteer(tokens, at + 1, end)
  );
}

/** Classifies the capitalised run at `at`, records what it finds, and returns how many tokens it used. */
function classifyRun(
  tokens: Token[],
  at: number,
  end: number,
  entry: GazetteerEntry | null,
  out: Collector,
): number {
  const length = Math.max(runLength(tokens, at, end), 1);
  const runEnd = at + length;
  const gazetteerEntry = entry && !shadowsFirstName(tokens, at, entry, end) ? entry : null;

  // "DR Congo": a title word inside a known name is part of that name.
  const titled = personAfterTitle(tokens, at + (gazetteerEntry?.keys.length ?? 0), at, runEnd);
  if (titled) {
    recordPrefix(tokens, at, titled.prefixEnd, gazetteerEntry, out);
    out.add(displayName(tokens, titled.nameStart, titled.nameEnd), 'person');
    return titled.nameEnd - at;
  }

  if (gazetteerEntry) {
    const extendsToOrg =
      length > gazetteerEntry.keys.length && hasOrgKeyword(tokens, at + gazetteerEntry.keys.length, runEnd);
    if (!extendsToOrg) {
      out.add(gazetteerEntry.name, gazetteerEntry.type);
      return gazetteerEntry.keys.length;
    }
  }

  const start = tokens[at];
  if (start?.sentenceStart && length > 1 && !gazetteerEntry && isFillerOpening(start)) return 1;

  const type = classifyByCues(tokens, at, runEnd);
  if (type === 'organization') {
    out.add(displayName(tokens, trimLeadingTitles(tokens, at, runEnd), runEnd), type);
    return length;
  }
  if (type === 'person') {
    const nameEnd = personNameEnd(tokens, at, runEnd);
    out.add(displayName(tokens, at, nameEnd), type);
    return nameEnd - at;
  }
  if (type === 'location') {
    if (length === 1 && !placeKeywordMatch(tokens, at, runEnd))
      out.addGuessedPlace(displayName(tokens, at, runEnd));
    else out.add(displayName(tokens, at, runEnd), type);
    return length;
  }
  if (length === 1 && start) out.addLooseWord(start.text);
  return 1;
}

function classifyByCues(tokens: Token[], at: number, runEnd: number): EntityType | null {
  const length = runEnd - at;
  const previous = tokens[at - 1];
  const next = tokens[runEnd];
  const start = tokens[at];
  if (length > 1 && hasOrgKeyword(tokens, at, runEnd)) return 'organization';
  if (length > 1 && placeKeywordMatch(tokens, at, runEnd)) return 'location';
  const secondNameWord = isNameWord(tokens[at + 1]) || isNameParticle(tokens[at + 1]);
  if (length > 1 && FIRST_NAMES.has(start?.key ?? '') && secondNameWord) return 'person';
  const namedShape = length > 1 && length <= MAX_PERSON_NAME_WORDS && allNameWords(tokens, at, runEnd);
  if (namedShape && previous?.word && !previous.cap && PERSON_CUES_BEFORE.has(previous.key)) return 'person';
  if (namedShape && next?.word && PERSON_CUES_AFTER.has(next.key)) return 'person';
  if (length === 1 && start && isAcronym(start.text)) return 'organization';
  const afterPreposition = previous?.word && !previous.cap && LOCATION_PREPOSITIONS.has(previous.key);
  if (afterPreposition && length <= 3 && !DEMONYM_ENDING.test(tokens[runEnd - 1]?.key ?? ''))
    return 'location';
  return null;
}

interface TitledPerson {
  prefixEnd: number;
  nameStart: number;
  nameEnd: number;
}

/** "Defence Minister Rustem Umerov": the name after the rightmost title that is followed by a name. */
function personAfterTitle(
  tokens: Token[],
  firstTitle: number,
  at: number,
  runEnd: number,
): TitledPerson | null {
  for (let t = runEnd - 2; t >= firstTitle; t--) {
    work++;
    if (!isTitle(tokens[t]) || !isNameWord(tokens[t + 1])) continue;
    const nameEnd = personNameEnd(tokens, t + 1, runEnd);
    // "General Labour Confederation": the words after the title name an organisation.
    if (nameEnd < runEnd && isOrgKeyword(tokens[nameEnd])) continue;
    let prefixEnd = t;
    while (prefixEnd > at && isTitle(tokens[prefixEnd - 1])) prefixEnd--;
    return { prefixEnd, nameStart: t + 1, nameEnd };
  }
  return null;
}

/** Where a person's name stops: at a title, keyword, place word or non-particle joiner, at most four words. */
function personNameEnd(tokens: Token[], from: number, runEnd: number): number {
  let j = from;
  while (j < runEnd && j - from < MAX_PERSON_NAME_WORDS) {
    work++;
    const token = tokens[j];
    if (!isNameParticle(token) && !isNameWord(token)) break;
    j++;
    if (token?.closes) break;
  }
  while (j > from + 1 && !tokens[j - 1]?.cap) j--;
  return Math.max(j, from + 1);
}

/** Words in front of a person's title: an organisation ("NATO", "Central Bank") or nothing worth keeping. */
function recordPrefix(
  tokens: Token[],
  at: number,
  prefixEnd: number,
  entry: GazetteerEntry | null,
  out: Collector,
): void {
  const length = prefixEnd - at;
  if (length <= 0) return;
  if (entry && entry.keys.length === length) out.add(entry.name, entry.type);
  else if (length > 1 && hasOrgKeyword(tokens, at, prefixEnd))
    out.add(displayName(tokens, at, prefixEnd), 'organization');
  else if (entry && entry.keys.length < length) out.add(entry.name, entry.type);
}

function hasOrgKeyword(tokens: Token[], from: number, to: number): boolean {
  work += Math.max(0, to - from);
  for (let j = from; j < to; j++) if (isOrgKeyword(tokens[j])) return true;
  return false;
}

function allNameWords(tokens: Token[], from: number, to: number): boolean {
  work += Math.max(0, to - from);
  for (let j = from; j < to; j++) if (!isNameWord(tokens[j]) && !isNameParticle(tokens[j])) return false;
  return true;
}

function placeKeywordMatch(tokens: Token[], at: number, runEnd: number): boolean {
  return PLACE_SUFFIXES.has(tokens[runEnd - 1]?.key ?? '') || PLACE_PREFIXES.has(tokens[at]?.key ?? '');
}

/** "Governor of the Central Bank" → "Central Bank"; "General Labour Confederation" keeps its first word. */
function trimLeadingTitles(tokens: Token[], at: number, runEnd: number): number {
  work += Math.max(0, runEnd - at);
  let j = at;
  while (j < runEnd - 1 && isTitle(tokens[j])) j++;
  if (j === at || tokens[j]?.cap) return at;
  while (j < runEnd - 1 && !tokens[j]?.cap) j++;
  return j;
}

const isAcronym = (word: string): boolean =>
  ACRONYM.test(word) &&
  (word.match(/\p{Lu}/gu)?.length ?? 0) >= 2 &&
  !ACRONYM_STOP_WORDS.has(word.toLowerCase());

/** "Striking dockworkers", "Heavy fighting": an adverb or participle opening a sentence is not a name. */
const isFillerOpening = (token: Token): boolean =>
  SENTENCE_START_FILLER.test(token.key) && !FIRST_NAMES.has(token.key) && !TITLES.has(token.key);
