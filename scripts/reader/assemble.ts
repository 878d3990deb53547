/**
 * Copies the labelled items of the labelling pool into the training set beside the training
 * script (`npm run reader:assemble`):
 *   data/items.jsonl          pool items with a primary label (title, summary ≤ 300, link, outlet, …; no documents)
 *   data/labels.jsonl         their primary labels (RUBRIC.md)
 *   data/labels-second.jsonl  independent second labels of the same ids (labellers named `…-b`)
 *   data/items-weak.jsonl, data/labels-weak.jsonl   unlabelled items a sound rule says are not
 *                             signals (linked under a sport, opinion, culture … section), counted apart
 *   data/SOURCES.md           provenance and licences of every document used
 * Never copied: items of the shared corpus documents (by normalised title) and of the
 * repositories kept for our own check. Reads pool*.jsonl and docs*.jsonl, labels/*.jsonl and the
 * labellers' refined event slugs (refine/events-refined.jsonl). LABELLING_DIR overrides /work/labelling.
 */
import fs from 'node:fs';
import path from 'node:path';
import { linkSections } from '../../src/reading/features';
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

const SOURCE = process.env.LABELLING_DIR ?? '/work/labelling';
const SUMMARY_MAX = 300;

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
  const sections = new Set(weak.sections);
  const hit = linkSections(item.link).find((s) => sections.has(s));
  return hit ? `path: /${hit}/` : null;
}

function main() {
  // pool.jsonl and its supplements (pool-extra.jsonl …), with their documents (docs*.jsonl).
  const listed = fs.readdirSync(SOURCE).sort();
  const pool = listed
    .filter((f) => /^pool.*\.jsonl$/.test(f))
    .flatMap((f) => readJsonl<PoolItem>(path.join(SOURCE, f)));
  const docs = listed
    .filter((f) => /^docs.*\.jsonl$/.test(f))
    .flatMap((f) => readJsonl<DocRow>(path.join(SOURCE, f)));
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
  for (const f of files) {
    for (const label of readJsonl<TrainLabel>(path.join(labelDir, f))) {
      if (!label.id) continue;
      const isSecond = String(label.labeller ?? '').endsWith('-b') || /-b\.jsonl$/.test(f);
      if (!isSecond && refined.has(label.id)) label.event = refined.get(label.id)!;
      (isSecond ? second : primary).set(label.id, label);
    }
  }

  const corpus = corpusTitles();
  const excluded = { corpus: 0, heldOut: 0 };
  const keep = (item: PoolItem): boolean => {
    if (held.has(repoOf(String(item.doc ?? '')))) return (excluded.heldOut++, false);
    if (corpus.has(normTitle(item.title))) return (excluded.corpus++, false);
    return true;
  };
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

  const items: TrainItem[] = [];
  const labels: TrainLabel[] = [];
  const seconds: TrainLabel[] = [];
  const weakItems: TrainItem[] = [];
  const weakLabels: TrainLabel[] = [];
  const seenTitles = new Set<string>();
  for (const item of [...pool].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const label = primary.get(item.id);
    if (!label && !weakLabel(item)) continue;
    if (!keep(item)) continue;
    if (label) {
      items.push(slim(item));
      labels.push(label);
      const other = second.get(item.id);
      if (other) seconds.push(other);
      seenTitles.add(normTitle(item.title));
    } else {
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
        weak: weakLabel(item)!,
      });
    }
  }

  fs.mkdirSync(DATA_DIR, { recursive: true });
  writeJsonl(path.join(DATA_DIR, 'items.jsonl'), items);
  writeJsonl(path.join(DATA_DIR, 'labels.jsonl'), labels);
  writeJsonl(path.join(DATA_DIR, 'labels-second.jsonl'), seconds);
  writeJsonl(path.join(DATA_DIR, 'items-weak.jsonl'), weakItems);
  writeJsonl(path.join(DATA_DIR, 'labels-weak.jsonl'), weakLabels);
  writeSources(docs, [...items, ...weakItems]);
  console.log(
    `assemble: ${items.length} labelled items (${labels.filter((l) => l.signal).length} signals), ` +
      `${seconds.length} second labels, ${weakItems.length} weak (not-signal by section); ` +
      `excluded ${excluded.corpus} corpus titles, ${excluded.heldOut} items of held-out repositories; ` +
      `${primary.size} primary labels in ${files.length} files, ${refined.size} event slugs refined`,
  );
}

function writeSources(docs: DocRow[], used: TrainItem[]) {
  const perDoc = new Map<string, number>();
  for (const item of used) perDoc.set(item.doc, (perDoc.get(item.doc) ?? 0) + 1);
  const byRepo = new Map<string, { licence: string; docs: number; items: number; outlets: Set<string> }>();
  for (const d of docs) {
    const n = perDoc.get(d.doc);
    if (!n) continue;
    const repo = d.repo ?? repoOf(d.doc);
    const row = byRepo.get(repo) ?? {
      licence: String(d.repo_licence ?? 'not recorded'),
      docs: 0,
      items: 0,
      outlets: new Set(),
    };
    row.docs += 1;
    row.items += n;
    if (d.outlet) row.outlets.add(d.outlet);
    byRepo.set(repo, row);
  }
  const upstream = path.join(SOURCE, 'SOURCES.md');
  const lines = [
    '# Where the training set comes from',
    '',
    'Generated by `npm run reader:assemble` from the labelling pool. Each item is one entry of a',
    'public feed document recorded in a public GitHub repository: its title, its summary clipped to',
    '300 characters, its link, outlet, language, date and the feed’s categories; no whole documents.',
    'Labels follow `../shared/news-eval/RUBRIC.md`, given by readers who read each item (never by the',
    'rules of `src/reading`). Headlines and summaries remain their publishers’ text: they are kept',
    'here only to train and measure the reader.',
    '',
    '| repository | licence | documents | items | outlets |',
    '| --- | --- | --- | --- | --- |',
    ...[...byRepo.entries()]
      .sort((a, b) => b[1].items - a[1].items)
      .map(
        ([repo, r]) =>
          `| ${repo} | ${r.licence} | ${r.docs} | ${r.items} | ${[...r.outlets].sort().join(', ')} |`,
      ),
    '',
    'Per document (repository, commit, path, feed):',
    '',
    ...docs
      .filter((d) => perDoc.has(d.doc))
      .map((d) => `- \`${d.doc}\`${d.feed_url ? ` ← ${d.feed_url}` : ''} (${perDoc.get(d.doc)} items)`),
    '',
  ];
  if (fs.existsSync(upstream))
    lines.push('## The pool’s own notes (labelling/SOURCES.md)', '', fs.readFileSync(upstream, 'utf8'));
  fs.writeFileSync(path.join(DATA_DIR, 'SOURCES.md'), lines.join('\n'));
}

main();
