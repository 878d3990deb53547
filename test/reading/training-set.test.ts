/**
 * The training set (scripts/reader/data) never holds an item of the shared corpus documents
 * (../shared/news-corpus, which the dev labels and our own checks read): a corpus headline in
 * training would let the model learn the check. Under CI the corpus must be there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { normTitle, readJsonl } from '../../scripts/reader/io';

const ROOT = path.resolve(__dirname, '..', '..');
const CORPUS = path.resolve(ROOT, '..', 'shared', 'news-corpus', 'items.jsonl');
const DATA = path.join(ROOT, 'scripts', 'reader', 'data');
const present = fs.existsSync(CORPUS);

describe('the training set', () => {
  it('has the corpus to check against under CI', () => {
    if (process.env.CI === 'true') expect(present, `${CORPUS} is missing`).toBe(true);
  });

  it.skipIf(!present)('holds no headline of the shared corpus documents', () => {
    const corpus = new Set(readJsonl<{ title: string }>(CORPUS).map((i) => normTitle(i.title)));
    expect(corpus.size).toBeGreaterThan(500);
    const training = ['items.jsonl', 'items-weak.jsonl'].flatMap((f) =>
      readJsonl<{ id: string; title: string }>(path.join(DATA, f)),
    );
    expect(training.length).toBeGreaterThan(0);
    const leaked = training.filter((i) => corpus.has(normTitle(i.title))).map((i) => `${i.id}: ${i.title}`);
    expect(leaked).toEqual([]);
  });

  it('keeps summaries clipped to 300 characters and labels for every item', () => {
    const items = readJsonl<{ id: string; summary: string }>(path.join(DATA, 'items.jsonl'));
    const labels = new Set(readJsonl<{ id: string }>(path.join(DATA, 'labels.jsonl')).map((l) => l.id));
    expect(items.every((i) => i.summary.length <= 300)).toBe(true);
    expect(items.filter((i) => !labels.has(i.id)).map((i) => i.id)).toEqual([]);
  });
});
