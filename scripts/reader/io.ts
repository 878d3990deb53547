/** File helpers shared by the reader's assemble and train scripts. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const READER_DIR = path.dirname(fileURLToPath(import.meta.url));
export const DATA_DIR = path.join(READER_DIR, 'data');
/** The shared check data beside the repository (the corpus and dev labels we never train on). */
export const SHARED_DIR = path.resolve(READER_DIR, '..', '..', '..', 'shared');

export function readJsonl<T>(file: string): T[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

export function writeJsonl(file: string, rows: readonly unknown[]): void {
  fs.writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : ''));
}

/** The title identity the scorer uses (../shared/news-eval/score.mjs `normTitle`). */
export const normTitle = (t: unknown): string =>
  (typeof t === 'string' ? t : '')
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/** A labelled item of the training set (scripts/reader/data/items.jsonl). */
export interface TrainItem {
  id: string;
  outlet: string;
  outlet_kind: string;
  lang: string;
  date: string;
  title: string;
  summary: string;
  link: string | null;
  categories: string[];
  doc: string;
}

/** A label per ../shared/news-eval/RUBRIC.md, keyed by item id. */
export interface TrainLabel {
  id: string;
  signal: boolean;
  layer: string | null;
  alt_layers: string[];
  countries: string[];
  also_countries: string[];
  severity: number;
  valence: string | null;
  event: string | null;
  labeller: string;
  /** Set on weak labels: the rule that gave it. */
  weak?: string;
}
