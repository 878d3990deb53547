/**
 * Where the gazetteer misses or adds countries on the labelled training items (scripts/reader/data),
 * per language and per likely cause, to find general fixes (never tuned on the dev labels):
 *   npx tsx scripts/gazetteer/misses.ts [--lang=ru] [--show=cause] [--limit=40]
 * Every labelled signal is read (not only those the model keeps), so the figures do not depend on a
 * model; causes are guesses from the text, to sort the misses, not a measure.
 */
import path from 'node:path';
import { locate } from '../../src/reading/locate';
import { readPlaces } from '../../src/reading/places';
import { itemLanguage } from '../../src/reading/language';
import { DATA_DIR, readJsonl, type TrainItem, type TrainLabel } from '../reader/io';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const onlyLang = arg('lang');
const show = arg('show');
const limit = Number(arg('limit') ?? 30);

const items = new Map(readJsonl<TrainItem>(path.join(DATA_DIR, 'items.jsonl')).map((i) => [i.id, i]));
const labels = readJsonl<TrainLabel>(path.join(DATA_DIR, 'labels.jsonl')).filter((l) => l.signal);

interface Tally {
  tp: number;
  fp: number;
  fn: number;
  n: number;
}
const byLang = new Map<string, Tally>();
const causes = new Map<string, { count: number; examples: string[] }>();
const wrongCodes = new Map<string, number>();
const missedCodes = new Map<string, number>();
const note = (cause: string, example: string) => {
  const c = causes.get(cause) ?? { count: 0, examples: [] };
  c.count++;
  c.examples.push(example);
  causes.set(cause, c);
};

for (const label of labels) {
  const item = items.get(label.id);
  if (!item) continue;
  const lang = itemLanguage(item.lang, item.summary ? `${item.title}. ${item.summary}` : item.title);
  const short = String(item.lang ?? '?')
    .slice(0, 2)
    .toLowerCase();
  if (onlyLang && short !== onlyLang) continue;
  const read = readPlaces(item.title, item.summary, lang);
  const pred = new Set(locate(item.title, item.summary, lang, item.link).countries);
  const allowed = new Set([...label.countries, ...label.also_countries]);
  const t = byLang.get(short) ?? { tp: 0, fp: 0, fn: 0, n: 0 };
  t.n++;
  byLang.set(short, t);
  const text = `${item.title} | ${item.summary.slice(0, 200)}`;
  for (const c of pred) {
    if (allowed.has(c)) t.tp++;
    else {
      t.fp++;
      wrongCodes.set(c, (wrongCodes.get(c) ?? 0) + 1);
      const m = read.matches.find((x) => x.code === c);
      note(
        `${short} wrong:${m?.kind ?? '?'}`,
        `${c} "${m?.text}" want [${label.countries}] ${item.outlet}: ${text}`,
      );
    }
  }
  for (const c of label.countries) {
    if (pred.has(c)) continue;
    t.fn++;
    missedCodes.set(c, (missedCodes.get(c) ?? 0) + 1);
    const example = `${c} got [${read.countries}] ${item.outlet} (${item.outlet_kind}): ${text}`;
    if (read.mentioned.includes(c)) {
      note(`${short} miss:named-not-kept`, example);
      continue;
    }
    const any = readPlaces(item.title, item.summary, null);
    if (any.countries.includes(c) || any.mentioned.includes(c)) {
      note(`${short} miss:other-language-name`, example);
      continue;
    }
    note(
      `${short} miss:${label.countries.length > 1 && read.countries.length ? 'one-of-several' : read.countries.length ? 'other-country-read' : 'nothing-read'}`,
      example,
    );
  }
}

const f = (x: number) => x.toFixed(3);
let all = { tp: 0, fp: 0, fn: 0, n: 0 };
console.log('lang   items  precision recall  F1    (every labelled signal)');
/** One line of the table: items, precision, recall, F1 and the misses of a tally. */
function row(label: string, t: { tp: number; fp: number; fn: number; n: number }): string {
  const p = t.tp / (t.tp + t.fp);
  const r = t.tp / (t.tp + t.fn);
  return `${label.padEnd(5)} ${String(t.n).padStart(6)}  ${f(p)}     ${f(r)}  ${f((2 * p * r) / (p + r))}  fn ${t.fn} fp ${t.fp}`;
}
/** The 25 most frequent codes of a count. */
const top = (counts: Map<string, number>) =>
  [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25)
    .map(([c, n]) => `${c}:${n}`)
    .join(' ');
for (const [lang, t] of [...byLang].sort((a, b) => b[1].n - a[1].n)) {
  all = { tp: all.tp + t.tp, fp: all.fp + t.fp, fn: all.fn + t.fn, n: all.n + t.n };
  console.log(row(lang, t));
}
console.log(row('all', all));
console.log('\nmissed codes', top(missedCodes));
console.log('wrong codes', top(wrongCodes));
console.log('\ncauses');
for (const [cause, c] of [...causes].sort((a, b) => b[1].count - a[1].count)) {
  console.log(`${String(c.count).padStart(5)}  ${cause}`);
  if (show && cause.includes(show)) for (const e of c.examples.slice(0, limit)) console.log(`        ${e}`);
}
