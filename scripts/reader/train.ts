/**
 * Trains the learned reader (`npm run train:reader`) on scripts/reader/data (assembled by
 * `npm run reader:assemble`) and writes src/reading/data/model.json. Before that it prints what
 * matters, all by outlet-grouped 5-fold cross-validation (an outlet's items are never split
 * between training and test) of the whole reader as the service runs it (gazetteer, fact rules,
 * model, severity formula, event linking): the figures of issue 26, the learning curve, and the
 * agreement of the two labellers on double-labelled items. Deterministic: fixed seeds and order.
 *   npm run train:reader                 # CV, learning curve, final model, REPORT.md
 *   npm run train:reader -- --quick      # CV on all items only (no curve), no files written
 *   npm run train:reader -- --no-curve   # CV and final model, no learning curve
 *   DUMP_READS=file npm run train:reader -- --quick   # also writes the out-of-fold readings (JSON lines)
 */
import fs from 'node:fs';
import path from 'node:path';
import { prepareNewsItem } from '../../src/reading/news';
import { decideNews, type NewsReading, type PreparedNews } from '../../src/reading/read';
import {
  dequantise,
  LinearModel,
  quantise,
  SEVERITY_ORIGIN,
  toBase64,
  OUTPUTS,
  type ModelFile,
} from '../../src/reading/model';
import { DIMENSION } from '../../src/reading/features';
import { LAYERS, VALENCES, type Layer } from '../../src/vocab';
import { DATA_DIR, READER_DIR, readJsonl, type TrainItem, type TrainLabel } from './io';
import { DEFAULT_OPTIONS, shuffled, train, type Example, type TrainOptions } from './learn';
import { linkAll } from './link-sim';

const REQUIRED = ['fr', 'es', 'de', 'pt', 'ru', 'uk', 'ar'];
const FOLDS = 5;
/** Weak labels are sound but shallow (a section): they teach the keep head at half weight. */
const WEAK_WEIGHT = 0.5;
/** Sources in the scorer are `community`: the CV reads as the scorer's service does. */
const TIER = 'community' as const;

interface Row {
  item: TrainItem;
  label: TrainLabel;
  weak: boolean;
  place: { countries: string[]; city: { name: string } | null };
  prepared: PreparedNews;
  lang: string;
}

const args = new Set(process.argv.slice(2));
/** `--set key=value` overrides a training option (to compare settings by the same CV). */
const OPTIONS: TrainOptions = { ...DEFAULT_OPTIONS };
for (const a of process.argv.slice(2)) {
  const m = a.match(/^--(\w+)=([\d.e-]+)$/);
  if (m && m[1]! in OPTIONS) (OPTIONS as unknown as Record<string, number>)[m[1]!] = Number(m[2]);
}
const log: string[] = [];
const say = (line = '') => {
  log.push(line);
  console.log(line);
};
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a');
const f4 = (x: number) => (Number.isFinite(x) ? x.toFixed(4) : 'n/a');

function load(): Row[] {
  const items = readJsonl<TrainItem>(path.join(DATA_DIR, 'items.jsonl'));
  const labels = new Map(readJsonl<TrainLabel>(path.join(DATA_DIR, 'labels.jsonl')).map((l) => [l.id, l]));
  const weakItems = readJsonl<TrainItem>(path.join(DATA_DIR, 'items-weak.jsonl'));
  const weakLabels = new Map(
    readJsonl<TrainLabel>(path.join(DATA_DIR, 'labels-weak.jsonl')).map((l) => [l.id, l]),
  );
  const rows: Row[] = [];
  for (const [list, map, weak] of [
    [items, labels, false],
    [weakItems, weakLabels, true],
  ] as const) {
    for (const item of list) {
      const label = map.get(item.id);
      if (!label) continue;
      const { place, prepared } = prepareNewsItem({
        title: item.title,
        summary: item.summary,
        link: item.link,
        language: item.lang,
        tier: TIER,
        categories: item.categories,
      });
      rows.push({
        item,
        label,
        weak,
        place,
        prepared,
        lang: String(item.lang ?? '?')
          .slice(0, 2)
          .toLowerCase(),
      });
    }
  }
  return rows;
}

function layerTarget(label: TrainLabel): number[] | null {
  if (!label.signal || !label.layer) return null;
  const k = LAYERS.indexOf(label.layer as Layer);
  if (k < 0) return null;
  const alts = (label.alt_layers ?? [])
    .map((l) => LAYERS.indexOf(l as Layer))
    .filter((i) => i >= 0 && i !== k);
  const t = new Array<number>(LAYERS.length).fill(0);
  t[k] = alts.length ? 0.7 : 1;
  for (const a of alts) t[a] = t[a]! + 0.3 / alts.length;
  return t;
}

function example(row: Row): Example {
  const { label } = row;
  const signal = Boolean(label.signal) && !row.weak;
  const layer = signal ? layerTarget(label) : null;
  let severity: number | null = null;
  if (signal && layer && typeof label.severity === 'number') {
    severity = label.severity - SEVERITY_ORIGIN;
  }
  const v = signal && label.valence ? VALENCES.indexOf(label.valence as never) : -1;
  return {
    features: row.prepared.features,
    keep: Boolean(label.signal),
    layer,
    valence: v >= 0 ? v : null,
    severity,
    weight: row.weak ? WEAK_WEIGHT : 1,
  };
}

/** The shipped form of a trained model: int8 weights, as the service decodes them. */
function asShipped(model: LinearModel): LinearModel {
  const { scales, bytes } = quantise(model);
  return new LinearModel(dequantise(scales, bytes), model.bias, model.threshold, model.otherThreshold);
}

/** Outlets to folds: largest first, each to the fold with the fewest items (ties: lowest fold). */
function foldsOf(rows: readonly Row[]): Map<string, number> {
  const count = new Map<string, number>();
  for (const r of rows) if (!r.weak) count.set(r.item.outlet, (count.get(r.item.outlet) ?? 0) + 1);
  const sizes = new Array<number>(FOLDS).fill(0);
  const out = new Map<string, number>();
  for (const [outlet, n] of [...count.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) {
    const k = sizes.indexOf(Math.min(...sizes));
    out.set(outlet, k);
    sizes[k] = sizes[k]! + n;
  }
  return out;
}

interface Read {
  row: Row;
  reading: NewsReading;
  event?: string;
}

function crossValidate(rows: readonly Row[]): Read[] {
  const folds = foldsOf(rows);
  const examples = rows.map(example);
  const reads: Read[] = [];
  for (let k = 0; k < FOLDS; k++) {
    // Weak items of a held-out outlet stay out too: the outlet is unseen.
    const trainSet = examples.filter((_, i) => folds.get(rows[i]!.item.outlet) !== k);
    if (trainSet.length === rows.length) continue;
    const model = asShipped(train(trainSet, OPTIONS));
    rows.forEach((row) => {
      if (row.weak || folds.get(row.item.outlet) !== k) return;
      reads.push({ row, reading: decideNews(row.prepared, model) });
    });
  }
  // Events over every out-of-fold reading at once: same-event pairs span outlets, hence folds.
  const kept = reads.filter((r) => r.reading.event && r.reading.layer);
  const events = linkAll(
    kept.map((r) => ({
      id: r.row.item.id,
      layer: r.reading.layer!,
      countries: r.row.place.countries,
      publishedAt: Date.parse(r.row.item.date) || 0,
      title: r.row.item.title,
      summary: r.row.item.summary,
      kind: r.reading.kind,
      dead: r.reading.casualties.dead,
      city: r.row.place.city?.name ?? null,
    })),
  );
  for (const r of kept) r.event = events.get(r.row.item.id);
  return reads;
}

export function spearman(xs: readonly number[], ys: readonly number[]): number {
  const rank = (v: readonly number[]) => {
    const idx = v.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
    const r = new Array<number>(v.length);
    for (let i = 0; i < idx.length;) {
      let j = i;
      while (j + 1 < idx.length && idx[j + 1]![0] === idx[i]![0]) j++;
      for (let k = i; k <= j; k++) r[idx[k]![1]] = (i + j) / 2;
      i = j + 1;
    }
    return r;
  };
  const n = xs.length;
  if (n < 3) return NaN;
  const rx = rank(xs);
  const ry = rank(ys);
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const mx = mean(rx);
  const my = mean(ry);
  let num = 0;
  let dx = 0;
  let dy = 0;
  for (let i = 0; i < n; i++) {
    num += (rx[i]! - mx) * (ry[i]! - my);
    dx += (rx[i]! - mx) ** 2;
    dy += (ry[i]! - my) ** 2;
  }
  return dx && dy ? num / Math.sqrt(dx * dy) : NaN;
}

/** The figures of ../shared/news-eval/score.mjs `metricsOf`, over out-of-fold readings (printed to three decimals where a target applies, so rounding hides no miss). */
function metrics(reads: readonly Read[]) {
  const ratio = (a: number, b: number) => (b ? a / b : NaN);
  const gold = reads.filter((r) => r.row.label.signal);
  const noise = reads.filter((r) => !r.row.label.signal);
  const kept = reads.filter((r) => r.reading.event);
  const hit = gold.filter((r) => r.reading.event);
  const keepP = ratio(kept.filter((r) => r.row.label.signal).length, kept.length);
  const keepR = ratio(hit.length, gold.length);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let layerOk = 0;
  let layerStrict = 0;
  let valenceOk = 0;
  for (const { row, reading } of hit) {
    const { label } = row;
    const pred = new Set(row.place.countries);
    const allowed = new Set([...(label.countries ?? []), ...(label.also_countries ?? [])]);
    for (const c of pred) {
      if (allowed.has(c)) tp++;
      else fp++;
    }
    for (const c of label.countries ?? []) if (!pred.has(c)) fn++;
    if (reading.layer === label.layer) layerStrict++;
    if (reading.layer === label.layer || (label.alt_layers ?? []).includes(reading.layer!)) layerOk++;
    if (reading.valence === label.valence) valenceOk++;
  }
  const cP = ratio(tp, tp + fp);
  const cR = ratio(tp, tp + fn);
  const byLang: Record<string, { gold: number; kept: number }> = {};
  for (const r of gold) {
    const l = (byLang[r.row.lang] ??= { gold: 0, kept: 0 });
    l.gold++;
    if (r.reading.event) l.kept++;
  }
  let same = 0;
  let sameLinked = 0;
  let other = 0;
  let otherLinked = 0;
  for (let a = 0; a < hit.length; a++) {
    for (let b = a + 1; b < hit.length; b++) {
      const x = hit[a]!;
      const y = hit[b]!;
      const linked = Boolean(x.event) && x.event === y.event;
      const slug = x.row.label.event;
      if (slug && slug === y.row.label.event) {
        if (x.row.item.outlet === y.row.item.outlet) continue;
        same++;
        if (linked) sameLinked++;
      } else {
        other++;
        if (linked) otherLinked++;
      }
    }
  }
  const nonEnglish = gold.filter((r) => REQUIRED.includes(r.row.lang));
  return {
    items: reads.length,
    gold: gold.length,
    keepP,
    keepR,
    keepF1: keepP + keepR ? (2 * keepP * keepR) / (keepP + keepR) : NaN,
    layer: ratio(layerOk, hit.length),
    layerStrict: ratio(layerStrict, hit.length),
    cP,
    cR,
    cF1: cP + cR ? (2 * cP * cR) / (cP + cR) : NaN,
    spearman: spearman(
      hit.map((r) => r.reading.score),
      hit.map((r) => r.row.label.severity),
    ),
    mae: ratio(
      hit.reduce((s, r) => s + Math.abs(r.reading.score - r.row.label.severity), 0),
      hit.length,
    ),
    valence: ratio(valenceOk, hit.length),
    noiseKept: ratio(noise.filter((r) => r.reading.event).length, noise.length),
    noise5: ratio(noise.filter((r) => r.reading.event && r.reading.score >= 5).length, noise.length),
    nonEnglish: ratio(nonEnglish.filter((r) => r.reading.event).length, nonEnglish.length),
    byLang,
    same,
    sameLinked: ratio(sameLinked, same),
    other,
    otherLinked: ratio(otherLinked, other),
  };
}

/** Keep F1 at other thresholds of the out-of-fold keep probability (how well the model ranks). */
function thresholds(reads: readonly Read[]) {
  const parts: string[] = [];
  for (const t of [0.2, 0.3, 0.4, 0.5, 0.6]) {
    const kept = reads.filter((r) => r.reading.confidence.keep >= t);
    const tp = kept.filter((r) => r.row.label.signal).length;
    const gold = reads.filter((r) => r.row.label.signal).length;
    const p = tp / kept.length;
    const rc = tp / gold;
    parts.push(`${t}: P ${f2(p)} R ${f2(rc)} F1 ${f2((2 * p * rc) / (p + rc))}`);
  }
  say(`keep at other thresholds  ${parts.join('; ')}`);
}

function printMetrics(m: ReturnType<typeof metrics>) {
  say(`items ${m.items}, labelled signals ${m.gold}`);
  say(
    `keep (is it a signal?)   precision ${f2(m.keepP)}  recall ${f2(m.keepR)}  F1 ${f3(m.keepF1)}   (target F1 >= 0.8)`,
  );
  say(`layer                    accuracy ${f3(m.layer)} (strict ${f2(m.layerStrict)})   (target >= 0.9)`);
  say(
    `countries                precision ${f2(m.cP)}  recall ${f2(m.cR)}  F1 ${f3(m.cF1)}   (target >= 0.93)`,
  );
  say(
    `severity                 Spearman ${f3(m.spearman)}  mean abs error ${f2(m.mae)}   (target Spearman >= 0.65)`,
  );
  say(`valence                  accuracy ${f2(m.valence)}`);
  say(
    `noise                    kept ${f2(m.noiseKept)}  kept with score >= 5 ${f3(m.noise5)}   (target <= 0.02)`,
  );
  const langs = Object.entries(m.byLang)
    .sort((a, b) => b[1].gold - a[1].gold)
    .map(([l, v]) => `${l} ${v.kept}/${v.gold} (${f2(v.kept / v.gold)})`)
    .join(', ');
  say(
    `fr/es/de/pt/ru/uk/ar     recall ${f2(m.nonEnglish)}; by language (kept/labelled): ${langs}   (target >= 0.7 each)`,
  );
  say(
    `same event               ${m.same} pairs from different outlets, linked ${f3(m.sameLinked)}; ` +
      `${m.other} pairs of different events, linked ${f4(m.otherLinked)}   (targets >= 0.7, <= 0.0020)`,
  );
}

function agreement() {
  const primary = new Map(readJsonl<TrainLabel>(path.join(DATA_DIR, 'labels.jsonl')).map((l) => [l.id, l]));
  const pairs = readJsonl<TrainLabel>(path.join(DATA_DIR, 'labels-second.jsonl'))
    .map((b) => [primary.get(b.id), b] as const)
    .filter((p): p is readonly [TrainLabel, TrainLabel] => Boolean(p[0]));
  say(`labeller agreement on ${pairs.length} double-labelled items:`);
  if (pairs.length < 2) return;
  const n = pairs.length;
  const agree = pairs.filter(([a, b]) => Boolean(a.signal) === Boolean(b.signal)).length / n;
  const pa = pairs.filter(([a]) => a.signal).length / n;
  const pb = pairs.filter(([, b]) => b.signal).length / n;
  const chance = pa * pb + (1 - pa) * (1 - pb);
  const kappa = (agree - chance) / (1 - chance);
  const both = pairs.filter(([a, b]) => a.signal && b.signal);
  const strict = both.filter(([a, b]) => a.layer === b.layer).length;
  const lenient = both.filter(
    ([a, b]) =>
      a.layer === b.layer ||
      (a.alt_layers ?? []).includes(b.layer!) ||
      (b.alt_layers ?? []).includes(a.layer!),
  ).length;
  say(`  keep: agreement ${f2(agree)}, Cohen's kappa ${f2(kappa)}`);
  say(
    `  layer (both signals, ${both.length}): same ${f2(strict / both.length)}, same or alt ${f2(lenient / both.length)}`,
  );
  say(
    `  severity Spearman ${f2(
      spearman(
        pairs.map(([a]) => a.severity),
        pairs.map(([, b]) => b.severity),
      ),
    )} (all pairs), ${f2(
      spearman(
        both.map(([a]) => a.severity),
        both.map(([, b]) => b.severity),
      ),
    )} (both signals)`,
  );
}

function describe(rows: readonly Row[]) {
  const human = rows.filter((r) => !r.weak);
  const outlets = new Set(human.map((r) => r.item.outlet));
  const langs: Record<string, number> = {};
  for (const r of human) langs[r.lang] = (langs[r.lang] ?? 0) + 1;
  say(
    `training set: ${human.length} labelled items (${human.filter((r) => r.label.signal).length} signals) from ${outlets.size} outlets; ` +
      `${rows.length - human.length} weak labels (not a signal by link section), counted apart`,
  );
  say(
    `by language: ${Object.entries(langs)
      .sort((a, b) => b[1] - a[1])
      .map(([l, n]) => `${l} ${n}`)
      .join(', ')}`,
  );
}

function main() {
  const started = Date.now();
  const rows = load();
  const human = rows.filter((r) => !r.weak);
  if (human.length < 50)
    throw new Error(`train:reader: only ${human.length} labelled items; run npm run reader:assemble`);
  say('# The learned reader: outlet-grouped 5-fold cross-validation');
  say();
  say('```');
  describe(rows);
  say(
    `model: ${DIMENSION} hashed buckets x ${OUTPUTS} outputs; AdaGrad ${JSON.stringify(OPTIONS)}; tier ${TIER} (as the scorer's sources)`,
  );
  say();
  agreement();
  say();
  say('whole reader, every labelled item, out of fold:');
  const reads = crossValidate(rows);
  if (process.env.DUMP_READS)
    fs.writeFileSync(
      process.env.DUMP_READS,
      reads
        .map((r) =>
          JSON.stringify({
            item: r.row.item,
            label: r.row.label,
            lang: r.row.lang,
            place: { countries: r.row.place.countries, city: r.row.place.city?.name ?? null },
            reading: {
              event: r.reading.event,
              layer: r.reading.layer,
              kind: r.reading.kind,
              dead: r.reading.casualties.dead,
              score: r.reading.score,
              keep: r.reading.confidence.keep,
            },
          }),
        )
        .join('\n'),
    );
  printMetrics(metrics(reads));
  thresholds(reads);
  if (process.env.SHOW_SEVERITY) {
    const hit = reads.filter((r) => r.row.label.signal && r.reading.event);
    const t = (r: Read) => r.reading.terms;
    const gold = hit.map((r) => r.row.label.severity);
    say(
      `severity Spearman: level only ${f2(
        spearman(
          hit.map((r) => t(r).base + t(r).casualties + t(r).scope + t(r).hedge),
          gold,
        ),
      )}, model term only ${f2(
        spearman(
          hit.map((r) => t(r).model),
          gold,
        ),
      )}, base only ${f2(
        spearman(
          hit.map((r) => t(r).base),
          gold,
        ),
      )}, keep probability ${f2(
        spearman(
          hit.map((r) => r.reading.confidence.keep),
          gold,
        ),
      )}, casualties ${f2(
        spearman(
          hit.map((r) => t(r).casualties),
          gold,
        ),
      )}`,
    );
    const dist: Record<number, number> = {};
    for (const g of gold) dist[g] = (dist[g] ?? 0) + 1;
    say(`label severities of hits: ${JSON.stringify(dist)}`);
  }
  if (process.env.SHOW_MISSES) {
    for (const r of reads.filter((x) => x.row.label.signal && !x.reading.event).slice(0, 25))
      console.log(
        'FN',
        r.reading.confidence.keep,
        r.row.label.layer,
        r.row.label.severity,
        '|',
        r.row.item.outlet,
        '|',
        r.row.item.title,
        '|',
        r.row.item.summary.slice(0, 80),
      );
    for (const r of reads.filter((x) => !x.row.label.signal && x.reading.event).slice(0, 15))
      console.log('FP', r.reading.confidence.keep, '|', r.row.item.outlet, '|', r.row.item.title);
  }
  // The curve costs twice the CV: `--no-curve` leaves it out when the machine is busy.
  if (!args.has('--quick') && !args.has('--no-curve')) {
    say();
    say(
      'learning curve (the same CV on the first N labelled items of a seeded shuffle; weak labels of their outlets kept):',
    );
    const order = shuffled(human, 7);
    for (const n of [1000, 2000, 4000]) {
      if (n >= human.length) continue;
      const subset = new Set(order.slice(0, n));
      const outlets = new Set([...subset].map((r) => r.item.outlet));
      const m = metrics(
        crossValidate(rows.filter((r) => subset.has(r) || (r.weak && outlets.has(r.item.outlet)))),
      );
      say(
        `  ${String(n).padStart(5)} items: keep F1 ${f2(m.keepF1)}, layer ${f2(m.layer)}, countries F1 ${f2(m.cF1)}, ` +
          `severity Spearman ${f2(m.spearman)}, noise>=5 ${f3(m.noise5)}, non-English recall ${f2(m.nonEnglish)}, same-event linked ${f2(m.sameLinked)}`,
      );
    }
    say(`  ${String(human.length).padStart(5)} items: (above)`);
  }
  say('```');
  if (args.has('--quick')) return;

  const model = train(rows.map(example), OPTIONS);
  const { scales, bytes } = quantise(model);
  const file: ModelFile = {
    version: 1,
    dimension: DIMENSION,
    outputs: OUTPUTS,
    threshold: model.threshold,
    otherThreshold: model.otherThreshold,
    bias: [...model.bias].map((b) => Math.round(b * 1e6) / 1e6),
    scales,
    weights: toBase64(bytes),
    trained: { items: rows.length, labels: `${human.length} labelled + ${rows.length - human.length} weak` },
  };
  const target = path.resolve(READER_DIR, '..', '..', 'src', 'reading', 'data', 'model.json');
  fs.writeFileSync(target, JSON.stringify(file));
  say();
  say(
    `model written to src/reading/data/model.json (${(fs.statSync(target).size / 1024).toFixed(0)} KiB); ${((Date.now() - started) / 1000).toFixed(0)} s in all`,
  );
  fs.writeFileSync(path.join(READER_DIR, 'REPORT.md'), log.join('\n') + '\n');
}

main();
