/**
 * Fits the rules' severity levels (src/reading/data/kinds.json) to the labelled severities of
 * scripts/reader/data, so the level reads on the rubric's scale (../shared/news-eval/RUBRIC.md)
 * rather than on hand-set numbers: each layer's default and each event kind's base are the mean
 * labelled severity of the signals of that layer naming that kind (shrunk towards the layer's mean
 * when a kind has few items), and the casualty buckets, scope and hedge are what they add on
 * average beyond the kind. Deterministic; rerun after the labels or the kind words change, then
 * `npm run train:reader`.
 *   npm run reader:levels && npx prettier --write src/reading/data/kinds.json
 */
import fs from 'node:fs';
import path from 'node:path';
import { casualtyCount } from '../../src/reading/casualties';
import type { ReadFacts } from '../../src/reading/features';
import { prepareNewsItem } from '../../src/reading/news';
import { KINDS } from '../../src/reading/rules';
import { LAYERS, type Layer } from '../../src/vocab';
import { DATA_DIR, READER_DIR, readJsonl, type TrainItem, type TrainLabel } from './io';

/** Pseudo-items at the layer's mean: a kind seen 5 times moves half-way from the layer's mean. */
const SHRINK = 5;
/** Casualty counts (dead + (hurt + missing) / 3) at which a bucket starts, per the rubric's steps. */
const CASUALTY_EDGES = [1, 2, 10, 100];

interface Fitted {
  facts: ReadFacts;
  layer: Layer;
  severity: number;
}

const tenth = (v: number): number => Math.round(v * 10) / 10;
const mean = (v: readonly number[]): number => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : 0);
/** The mean of `v` with `SHRINK` pseudo-values at `prior`. */
const shrunk = (v: readonly number[], prior: number): number =>
  (v.reduce((a, b) => a + b, 0) + SHRINK * prior) / (v.length + SHRINK);

/** The kind of the labelled layer as read.ts picks it: named in the headline first, then the gravest. */
function kindOf(facts: ReadFacts, layer: Layer): string | null {
  const mine = facts.kinds.filter((k) => k.layer === layer);
  mine.sort((a, b) => Number(b.head) - Number(a.head) || KINDS[b.kind]!.base - KINDS[a.kind]!.base);
  return mine[0]?.kind ?? null;
}

function load(): Fitted[] {
  const labels = new Map(readJsonl<TrainLabel>(path.join(DATA_DIR, 'labels.jsonl')).map((l) => [l.id, l]));
  const out: Fitted[] = [];
  for (const item of readJsonl<TrainItem>(path.join(DATA_DIR, 'items.jsonl'))) {
    const label = labels.get(item.id);
    if (!label?.signal || !LAYERS.includes(label.layer as Layer)) continue;
    const { prepared } = prepareNewsItem({
      title: item.title,
      summary: item.summary,
      link: item.link,
      language: item.lang,
      tier: 'community',
      categories: item.categories,
    });
    out.push({ facts: prepared.read.facts, layer: label.layer as Layer, severity: label.severity });
  }
  return out;
}

function fit(items: readonly Fitted[]) {
  const layerMean = Object.fromEntries(
    LAYERS.map((l) => [l, mean(items.filter((x) => x.layer === l).map((x) => x.severity))]),
  ) as Record<Layer, number>;
  const byKind = new Map<string, number[]>();
  const plain = new Map<Layer, number[]>();
  for (const x of items) {
    const kind = kindOf(x.facts, x.layer);
    const list = kind ? byKind.get(kind) : plain.get(x.layer);
    if (list) list.push(x.severity);
    else if (kind) byKind.set(kind, [x.severity]);
    else plain.set(x.layer, [x.severity]);
  }
  const layerDefault = Object.fromEntries(
    LAYERS.map((l) => [l, tenth(shrunk(plain.get(l) ?? [], layerMean[l]))]),
  ) as Record<Layer, number>;
  const base: Record<string, number> = {};
  for (const [kind, v] of byKind) base[kind] = tenth(shrunk(v, layerMean[KINDS[kind]!.layer]));
  // What each later term adds is fitted on what the earlier ones leave unexplained.
  const residual = (x: Fitted) => {
    const kind = kindOf(x.facts, x.layer);
    return x.severity - (kind ? base[kind]! : layerDefault[x.layer]);
  };
  const bucketOf = (x: Fitted) => {
    const n = casualtyCount(x.facts.casualties);
    let b = -1;
    while (b + 1 < CASUALTY_EDGES.length && n >= CASUALTY_EDGES[b + 1]!) b++;
    return b;
  };
  const none = mean(items.filter((x) => bucketOf(x) < 0).map(residual));
  let floor = 0;
  const lifts = CASUALTY_EDGES.map((_, b) => {
    // More casualties never lower the level (the rubric's scale rises with them).
    floor = Math.max(
      floor,
      shrunk(
        items.filter((x) => bucketOf(x) === b).map((x) => residual(x) - none),
        0,
      ),
    );
    return tenth(floor);
  });
  const afterCasualties = (x: Fitted) => residual(x) - (bucketOf(x) < 0 ? 0 : lifts[bucketOf(x)]!);
  const lift = (has: (x: Fitted) => boolean) =>
    tenth(
      mean(items.filter(has).map(afterCasualties)) - mean(items.filter((x) => !has(x)).map(afterCasualties)),
    );
  return {
    layerDefault,
    base,
    casualties: { edges: CASUALTY_EDGES, lifts },
    scope: lift((x) => x.facts.scope),
    hedge: lift((x) => x.facts.hedges.length > 0),
    items: items.length,
  };
}

function main() {
  const levels = fit(load());
  const file = path.resolve(READER_DIR, '..', '..', 'src', 'reading', 'data', 'kinds.json');
  const data = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    kinds: Record<string, { layer: Layer; base: number }>;
    [key: string]: unknown;
  };
  for (const [kind, k] of Object.entries(data.kinds)) {
    const fitted = levels.base[kind];
    // A kind no labelled signal names keeps its layer's default: no evidence it differs.
    k.base = fitted ?? levels.layerDefault[k.layer];
  }
  data.layerDefault = levels.layerDefault;
  const floors = (data.levels as { casualties?: { floors?: number[] } } | undefined)?.casualties?.floors;
  data.levels = {
    casualties: { ...levels.casualties, floors: floors ?? [] },
    scope: levels.scope,
    hedge: levels.hedge,
    fitted: `${levels.items} labelled signals (scripts/reader/levels.ts)`,
  };
  fs.writeFileSync(file, JSON.stringify(data, null, 2) + '\n');
  console.log(JSON.stringify({ ...levels, base: undefined }, null, 1));
  console.log(
    `levels of ${Object.keys(levels.base).length} kinds written to ${path.relative(process.cwd(), file)}`,
  );
}

main();
