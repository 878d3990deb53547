/**
 * Adds a labelled pool to the reader's training set (`npm run reader:assemble`). The set in
 * data/ is the base and is never rewritten: every item, label and SOURCES.md line stays, and the
 * labelled items of the pool are appended after them:
 *   data/items.jsonl          items with a primary label (title, summary ≤ 300, link, outlet, …; no documents)
 *   data/labels.jsonl         their primary labels (RUBRIC.md)
 *   data/labels-second.jsonl  independent second labels of the same ids (labellers named `…-b`)
 *   data/items-weak.jsonl, data/labels-weak.jsonl   unlabelled items a sound rule says are not
 *                             signals (linked under a sport, opinion, culture … section), counted apart
 *   data/SOURCES.md           provenance and licences: one block per labelling directory
 * Never added: items of the shared corpus documents (by normalised title), items of the
 * repositories kept for our own check, and duplicates of the set (by id or normalised title).
 * Idempotent: a second run over the same pool changes nothing; a run after more chunks are
 * labelled adds only those. Reads pool*.jsonl and docs*.jsonl, labels/*.jsonl and the labellers'
 * refined event slugs (refine/events-refined.jsonl) of LABELLING_DIR (default /work/labelling2).
 */
import fs from 'node:fs';
import path from 'node:path';
import { linkSections } from '../../src/reading/features';
import { LAYERS, VALENCES } from '../../src/vocab';
import weak from './weak.json';
import {
  DATA_DIR,
  normTitle,
  readJsonl,
  SHARED_DIR,
  writeJsonl,
  type TrainItem,
  type TrainLabel,
} from './io';

const SOURCE = path.resolve(process.env.LABELLING_DIR ?? '/work/labelling2');
const SUMMARY_MAX = 300;
const FILES = {
  items: path.join(DATA_DIR, 'items.jsonl'),
  labels: path.join(DATA_DIR, 'labels.jsonl'),
  second: path.join(DATA_DIR, 'labels-second.jsonl'),
  weakItems: path.join(DATA_DIR, 'items-weak.jsonl'),
  weakLabels: path.join(DATA_DIR, 'labels-weak.jsonl'),
  sources: path.join(DATA_DIR, 'SOURCES.md'),
};

interface PoolItem extends TrainItem {
  [key: string]: unknown;
}
interface DocRow {
  doc: string;
  repo?: string;
  path?: string;
  commit?: string;
  feed_url?: string;
  outlet?: string;
  lang?: string;
  items?: number;
  repo_licence?: string;
  [key: string]: unknown;
}

const held = new Set(weak.heldOutRepos.map((r) => r.toLowerCase()));
const weakSections = new Set(weak.sections);
const layers = new Set<string>(LAYERS);
const valences = new Set<string>(VALENCES);
const repoOf = (doc: string): string => doc.split('@')[0]!.toLowerCase();

function corpusTitles(): Set<string> {
  const file = path.join(SHARED_DIR, 'news-corpus', 'items.jsonl');
  if (!fs.existsSync(file)) {
    console.warn(`assemble: ${file} is missing: corpus items cannot be excluded by title`);
    return new Set();
  }
  return new Set(readJsonl<{ title: string }>(file).map((i) => normTitle(i.title)));
}

/** The weak label of an unlabelled item: a section that is never news of a threat. */
function weakLabel(item: PoolItem): string | null {
  const hit = linkSections(item.link).find((s) => weakSections.has(s));
  return hit ? `path: /${hit}/` : null;
}

/** A label a labeller could have mistyped is dropped rather than trained on. */
function validLabel(label: TrainLabel): boolean {
  if (typeof label.signal !== 'boolean') return false;
  if (label.signal) return layers.has(String(label.layer)) && valences.has(String(label.valence));
  return label.layer === null;
}

function dropById(rows: { id: string }[], id: string): void {
  const at = rows.findIndex((r) => r.id === id);
  if (at >= 0) rows.splice(at, 1);
}

const slim = (item: PoolItem): TrainItem => ({
  id: item.id,
  outlet: item.outlet,
  outlet_kind: item.outlet_kind,
  lang: item.lang,
  date: item.date,
  title: item.title,
  summary: String(item.summary ?? '').slice(0, SUMMARY_MAX),
  link: item.link ?? null,
  categories: Array.isArray(item.categories) ? item.categories.slice(0, 20).map(String) : [],
  doc: item.doc,
});

function readLabels(): {
  primary: Map<string, TrainLabel>;
  second: Map<string, TrainLabel>;
  files: number;
  refined: Map<string, string | null>;
} {
  // The labellers' own later review of event slugs (one event split into the events it was).
  const refined = new Map(
    readJsonl<{ id: string; event: string | null }>(path.join(SOURCE, 'refine', 'events-refined.jsonl')).map(
      (r) => [r.id, r.event],
    ),
  );
  const labelDir = path.join(SOURCE, 'labels');
  const files = fs.existsSync(labelDir)
    ? fs
        .readdirSync(labelDir)
        .filter((f) => f.endsWith('.jsonl'))
        .sort()
    : [];
  const primary = new Map<string, TrainLabel>();
  const second = new Map<string, TrainLabel>();
  let invalid = 0;
  for (const f of files) {
    for (const label of readJsonl<TrainLabel>(path.join(labelDir, f))) {
      if (!label.id) continue;
      if (!validLabel(label)) {
        invalid++;
        continue;
      }
      const isSecond = String(label.labeller ?? '').endsWith('-b') || /-b\.jsonl$/.test(f);
      if (!isSecond && refined.has(label.id)) label.event = refined.get(label.id)!;
      (isSecond ? second : primary).set(label.id, label);
    }
  }
  if (invalid)
    console.warn(`assemble: ${invalid} labels with an impossible signal/layer/valence were skipped`);
  return { primary, second, files: files.length, refined };
}

function main() {
  if (!fs.existsSync(SOURCE)) throw new Error(`assemble: no labelling directory at ${SOURCE}`);
  // pool.jsonl and its supplements (pool-de.jsonl, pool-extra.jsonl …), with their documents (docs*.jsonl).
  const listed = fs.readdirSync(SOURCE).sort();
  const pool = listed
    .filter((f) => /^pool.*\.jsonl$/.test(f))
    .flatMap((f) => readJsonl<PoolItem>(path.join(SOURCE, f)));
  const docs = listed
    .filter((f) => /^docs.*\.jsonl$/.test(f))
    .flatMap((f) => readJsonl<DocRow>(path.join(SOURCE, f)));
  const { primary, second, files, refined } = readLabels();

  // The base: the training set as it stands, kept whole and in its order.
  const items = readJsonl<TrainItem>(FILES.items);
  // A slug review done after the pool was added (refine/) applies to labels already in the set.
  const labels = readJsonl<TrainLabel>(FILES.labels).map((l) =>
    refined.has(l.id) ? { ...l, event: refined.get(l.id)! } : l,
  );
  const seconds = readJsonl<TrainLabel>(FILES.second);
  const weakItems = readJsonl<TrainItem>(FILES.weakItems);
  const weakLabels = readJsonl<TrainLabel>(FILES.weakLabels);
  const before = { items: items.length, seconds: seconds.length, weak: weakItems.length };
  const ids = new Set(items.map((i) => i.id));
  const weakIds = new Set(weakItems.map((i) => i.id));
  const titles = new Set(items.map((i) => normTitle(i.title)));
  const weakTitles = new Set(weakItems.map((i) => normTitle(i.title)));
  const secondIds = new Set(seconds.map((l) => l.id));

  const corpus = corpusTitles();
  const excluded = { corpus: 0, heldOut: 0, duplicate: 0 };
  let promoted = 0;
  for (const item of [...pool].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const label = primary.get(item.id);
    const weakReason = label ? null : weakLabel(item);
    if (!label && !weakReason) continue;
    if (ids.has(item.id)) continue; // already in the set: a second run, or an id used twice
    if (held.has(repoOf(String(item.doc ?? '')))) {
      excluded.heldOut++;
      continue;
    }
    const title = normTitle(item.title);
    if (corpus.has(title)) {
      excluded.corpus++;
      continue;
    }
    if (label) {
      // A weak item that has since been labelled by a reader moves to the labelled set.
      if (weakIds.has(item.id)) {
        dropById(weakItems, item.id);
        dropById(weakLabels, item.id);
        weakIds.delete(item.id);
        weakTitles.delete(title);
        promoted++;
      } else if (titles.has(title) || weakTitles.has(title)) {
        excluded.duplicate++;
        continue;
      }
      items.push(slim(item));
      labels.push(label);
      ids.add(item.id);
      titles.add(title);
    } else if (!weakIds.has(item.id)) {
      if (titles.has(title) || weakTitles.has(title)) {
        excluded.duplicate++;
        continue;
      }
      weakItems.push(slim(item));
      weakLabels.push({
        id: item.id,
        signal: false,
        layer: null,
        alt_layers: [],
        countries: [],
        also_countries: [],
        severity: 0,
        valence: null,
        event: null,
        labeller: 'weak',
        weak: weakReason!,
      });
      weakIds.add(item.id);
      weakTitles.add(title);
    }
  }
  // Second labels of any item in the set that has none yet (new items, or late second readings).
  for (const [id, label] of [...second.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (ids.has(id) && !secondIds.has(id)) {
      seconds.push(label);
      secondIds.add(id);
    }
  }

  writeJsonl(FILES.items, items);
  writeJsonl(FILES.labels, labels);
  writeJsonl(FILES.second, seconds);
  writeJsonl(FILES.weakItems, weakItems);
  writeJsonl(FILES.weakLabels, weakLabels);
  writeSources(docs, [...items, ...weakItems]);
  console.log(
    `assemble: ${items.length} labelled items (+${items.length - before.items}; ` +
      `${labels.filter((l) => l.signal).length} signals), ${seconds.length} second labels ` +
      `(+${seconds.length - before.seconds}), ${weakItems.length} weak (${weakItems.length - before.weak >= 0 ? '+' : ''}` +
      `${weakItems.length - before.weak}, ${promoted} promoted to labelled); from ${SOURCE}: ${primary.size} ` +
      `primary labels in ${files} files, excluded ${excluded.corpus} corpus titles, ${excluded.heldOut} ` +
      `items of held-out repositories, ${excluded.duplicate} duplicate titles`,
  );
}

/**
 * SOURCES.md keeps what it says and gets one block per labelling directory, between markers,
 * rebuilt in place on every run from that directory's documents that feed an item of the set.
 */
function writeSources(docs: DocRow[], used: TrainItem[]) {
  const begin = `<!-- assemble: ${SOURCE} -->`;
  const end = `<!-- /assemble: ${SOURCE} -->`;
  const current = fs.existsSync(FILES.sources) ? fs.readFileSync(FILES.sources, 'utf8') : '';
  const from = current.indexOf(begin);
  const to = current.indexOf(end);
  const place = (block: string): string =>
    from >= 0 && to > from
      ? current.slice(0, from) + block + current.slice(to + end.length)
      : block
        ? current.replace(/\n*$/, '\n\n') + block + '\n'
        : current;

  const perDoc = new Map<string, number>();
  for (const item of used) perDoc.set(item.doc, (perDoc.get(item.doc) ?? 0) + 1);
  const ours = [...new Map(docs.filter((d) => perDoc.has(d.doc)).map((d) => [d.doc, d])).values()];
  if (!ours.length) {
    fs.writeFileSync(FILES.sources, place(''));
    return;
  }
  const byRepo = new Map<string, { licence: string; docs: number; items: number; outlets: Set<string> }>();
  for (const d of ours) {
    const repo = d.repo ?? repoOf(d.doc);
    const row = byRepo.get(repo) ?? {
      licence: String(d.repo_licence ?? 'not recorded'),
      docs: 0,
      items: 0,
      outlets: new Set(),
    };
    row.docs += 1;
    row.items += perDoc.get(d.doc)!;
    if (d.outlet) row.outlets.add(d.outlet);
    byRepo.set(repo, row);
  }
  const notes = path.join(SOURCE, 'SOURCES.md');
  const block = [
    begin,
    `## Added from ${path.basename(SOURCE)}`,
    '',
    'Items of this labelling pool that readers labelled, added to the set above by `npm run reader:assemble`',
    '(same rules: title, summary clipped to 300 characters, link, outlet, language, date, the feed’s',
    'categories; never whole documents). Items per document count every item of the set from it.',
    '',
    '| repository | licence | documents | items | outlets |',
    '| --- | --- | --- | --- | --- |',
    ...[...byRepo.entries()]
      .sort((a, b) => b[1].items - a[1].items || (a[0] < b[0] ? -1 : 1))
      .map(
        ([repo, r]) =>
          `| ${repo} | ${r.licence} | ${r.docs} | ${r.items} | ${[...r.outlets].sort().join(', ')} |`,
      ),
    '',
    'Per document (repository, commit, path, feed):',
    '',
    ...ours
      .sort((a, b) => (a.doc < b.doc ? -1 : 1))
      .map((d) => `- \`${d.doc}\`${d.feed_url ? ` ← ${d.feed_url}` : ''} (${perDoc.get(d.doc)} items)`),
    '',
    ...(fs.existsSync(notes)
      ? ['### The pool’s own notes', '', fs.readFileSync(notes, 'utf8').trim(), '']
      : []),
    end,
  ];
  fs.writeFileSync(FILES.sources, place(block.join('\n')));
}

main();
