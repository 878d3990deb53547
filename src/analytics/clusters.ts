import { sql } from 'drizzle-orm';
import { queryRows, type Database, type SqlRow } from '../db/client';
import type { signals } from '../db/schema';
import { strongestOfEvent } from '../signals/query';
import type { Layer } from '../vocab';
import { clusterScore } from './formulas';
import { DAY_MS, iso, windowOf } from './sql';

/**
 * Clustering rule: a signal joins the existing cluster of its layer it is most similar to, when
 * that similarity reaches `minSimilarity`; otherwise it starts a new cluster.
 */
export const CLUSTERING = {
  minSimilarity: 0.3,
  /** ...and it shares at least this many features with the cluster, so one word never links. */
  minShared: 2,
  /** Entities name a story; title terms mostly describe its kind, so they weigh less. */
  entityWeight: 2,
  termWeight: 0.5,
  /** Features in more than this share of a layer's signals say nothing about a story. */
  maxDocumentShare: 0.5,
  /** ...but in a small layer a shared feature is exactly what makes a story. */
  minSignalsForShare: 20,
  maxClusters: 50,
  topFeatures: 5,
  /** The work bound: only the strongest signals of the window are clustered, whatever it holds. */
  maxSignals: 1000,
  /** Each cluster lists at most this many of its signals (strongest first); `signal_count` has all. */
  maxSignalIds: 100,
  /** Countries listed per cluster (most frequent first). */
  maxCountries: 10,
} as const;

const STOPWORDS = new Set(
  `about above after again against amid among and are around as at back be been before being
  below between both but by can could did does doing down during each few for from further had
  has have having her here hers him his how into its itself just more most new news nor not now
  off once only other our out over own report reports said same says she should some such than
  that the their them then there these they this those through under until very was were what
  when where which while who whom why will with would year years amid after over week weeks day
  days today latest update updates`.split(/\s+/),
);

/** Content words of a title: lower case, 4+ letters, not a stop word, plural `s` dropped. */
export function titleTerms(title: string): string[] {
  const words = title.toLowerCase().match(/\p{L}[\p{L}'-]*/gu) ?? [];
  const terms = words
    .map((w) => w.replace(/'s$/, ''))
    .filter((w) => w.length >= 4 && !STOPWORDS.has(w))
    .map((w) => (w.length > 4 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
  return [...new Set(terms)];
}

export interface ClusterSignal {
  id: string;
  layer: string;
  score: number;
  title: string;
  countries: string[];
  publishedAt: string;
  entities: string[];
}

/**
 * Groups signals into narrative clusters, per layer. Features of a signal are its extracted
 * entities and title terms, minus those in a single signal (and, in a layer of 20 or more
 * signals, those in over half of them), weighted by idf = ln(1 + N / df). Signals are taken
 * strongest first (score, then time, then id); each joins the cluster maximising
 *
 *   similarity = Σ_f idf(f) · (members of the cluster having f / cluster size) / Σ_f idf(f)
 *
 * over its features f (entities weigh 2, title terms 0.5), if that is ≥ 0.3 and at least 2 of its
 * features occur in the cluster; otherwise it founds a new one. Comparing with the whole
 * cluster, not with any one member, keeps a chain of pairwise look-alikes from merging stories.
 */
export function buildClusters(input: ClusterSignal[], minSignals: number) {
  const byLayer = new Map<string, ClusterSignal[]>();
  for (const s of input) {
    if (!byLayer.has(s.layer)) byLayer.set(s.layer, []);
    byLayer.get(s.layer)!.push(s);
  }
  const clusters = [];
  for (const [layer, unordered] of byLayer) {
    const list = [...unordered].sort(
      (a, b) => b.score - a.score || b.publishedAt.localeCompare(a.publishedAt) || a.id.localeCompare(b.id),
    );
    const features = list.map(
      (s) =>
        new Set([...s.entities.map((e) => `entity:${e}`), ...titleTerms(s.title).map((t) => `term:${t}`)]),
    );
    const df = new Map<string, number>();
    for (const set of features) for (const f of set) df.set(f, (df.get(f) ?? 0) + 1);
    const maxDf =
      list.length >= CLUSTERING.minSignalsForShare ? list.length * CLUSTERING.maxDocumentShare : list.length;
    const idf = (f: string) =>
      Math.log(1 + list.length / df.get(f)!) *
      (f.startsWith('entity:') ? CLUSTERING.entityWeight : CLUSTERING.termWeight);
    const useful = features.map((set) => [...set].filter((f) => df.get(f)! <= maxDf && df.get(f)! >= 2));

    const groups: { members: number[]; counts: Map<string, number> }[] = [];
    const groupsWith = new Map<string, Set<number>>();
    useful.forEach((feats, i) => {
      const weight = feats.reduce((sum, f) => sum + idf(f), 0);
      let best = -1;
      let bestSimilarity = 0;
      if (weight > 0) {
        const candidates = new Set(feats.flatMap((f) => [...(groupsWith.get(f) ?? [])]));
        for (const g of [...candidates].sort((a, b) => a - b)) {
          const group = groups[g]!;
          const shared = feats.filter((f) => group.counts.has(f)).length;
          if (shared < CLUSTERING.minShared) continue;
          const similarity =
            feats.reduce((sum, f) => sum + idf(f) * ((group.counts.get(f) ?? 0) / group.members.length), 0) /
            weight;
          if (similarity > bestSimilarity) [best, bestSimilarity] = [g, similarity];
        }
      }
      if (best < 0 || bestSimilarity < CLUSTERING.minSimilarity) {
        best = groups.push({ members: [], counts: new Map() }) - 1;
      }
      const group = groups[best]!;
      group.members.push(i);
      for (const f of feats) {
        group.counts.set(f, (group.counts.get(f) ?? 0) + 1);
        groupsWith.set(f, (groupsWith.get(f) ?? new Set()).add(best));
      }
    });
    const layerMean = list.reduce((sum, s) => sum + s.score, 0) / list.length;
    for (const { members } of groups) {
      if (members.length < minSignals) continue;
      const signals = members
        .map((i) => list[i]!)
        .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
      const mean = signals.reduce((sum, s) => sum + s.score, 0) / signals.length;
      const counts = (values: string[]) => {
        const m = new Map<string, number>();
        for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
        return [...m.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
      };
      const featureCounts = counts(members.flatMap((i) => useful[i]!)).filter(([, n]) => n >= 2);
      const top = (prefix: string) =>
        featureCounts
          .filter(([f]) => f.startsWith(prefix))
          .slice(0, CLUSTERING.topFeatures)
          .map(([f, n]) => ({ name: f.slice(prefix.length), signal_count: n }));
      const times = signals.map((s) => s.publishedAt).sort();
      clusters.push({
        threat_layer: layer,
        score: clusterScore(mean, signals.length, layerMean),
        signal_count: signals.length,
        mean_score: Math.round(mean * 100) / 100,
        layer_mean_score: Math.round(layerMean * 100) / 100,
        lift: Math.round((mean / layerMean) * 1000) / 1000,
        headline: signals[0]!.title,
        top_entities: top('entity:'),
        top_terms: top('term:'),
        countries: counts(signals.flatMap((s) => s.countries))
          .slice(0, CLUSTERING.maxCountries)
          .map(([code, n]) => ({ country_code: code, signal_count: n })),
        first_published_at: times[0]!,
        last_published_at: times[times.length - 1]!,
        signal_ids: signals.slice(0, CLUSTERING.maxSignalIds).map((s) => s.id),
      });
    }
  }
  return clusters.sort(
    (a, b) => b.score - a.score || b.signal_count - a.signal_count || a.headline.localeCompare(b.headline),
  );
}

type SignalRow = SqlRow<
  typeof signals,
  'id' | 'threatLayer' | 'significanceScore' | 'title' | 'countryCodes' | 'publishedAt'
>;

export type Cluster = ReturnType<typeof buildClusters>[number];

/**
 * Narrative clusters over the last `days`, optionally one layer and/or one country: every
 * cluster of 2 or more signals, best first (`minSignals` and the cap of 50 are applied by
 * `selectClusters`, so one computation serves every `min_signals`). The work is bounded whatever
 * the window holds: the strongest `CLUSTERING.maxSignals` signals of the window (by score, then
 * time, then id, an index order) are clustered, with their entities.
 */
export async function narrativeClusters(
  db: Database,
  now: Date,
  q: { days: number; layer?: Layer; country?: string },
) {
  const start = new Date(now.getTime() - q.days * DAY_MS);
  // The order of signals_rank_idx (NULLS LAST), so the strongest are read first from the index.
  const rows = await queryRows<SignalRow>(
    db,
    sql`SELECT signals.id, signals.threat_layer, signals.significance_score::float8 AS significance_score, signals.title, signals.country_codes, signals.published_at
        FROM signals
        WHERE signals.published_at > ${start.toISOString()}::timestamptz AND signals.published_at <= ${now.toISOString()}::timestamptz
          AND signals.retracted_at IS NULL
          ${q.layer ? sql`AND signals.threat_layer = ${q.layer}` : sql``}
          ${q.country ? sql`AND signals.country_codes @> ARRAY[${q.country}]::text[]` : sql``}
          AND ${strongestOfEvent({ start, end: now, layers: q.layer ? [q.layer] : undefined, country: q.country })}
        ORDER BY signals.significance_score DESC NULLS LAST, signals.published_at DESC NULLS LAST, signals.id
        LIMIT ${CLUSTERING.maxSignals}`,
  );
  // Their entities in a second statement: one index lookup per signal, and a plan cheap enough
  // that the server never compiles it (a per-row subquery made Postgres JIT-compile for seconds).
  const named = new Map<string, string[]>();
  if (rows.length > 0) {
    const links = await queryRows<{ signal_id: string; name: string }>(
      db,
      sql`SELECT se.signal_id, e.name FROM signal_entities se JOIN entities e ON e.id = se.entity_id
          WHERE se.signal_id = ANY(${`{${rows.map((r) => r.id).join(',')}}`}::uuid[])`,
    );
    for (const link of links) named.set(link.signal_id, [...(named.get(link.signal_id) ?? []), link.name]);
  }
  const clusters = buildClusters(
    rows.map((r) => ({
      id: r.id,
      layer: r.threat_layer,
      score: r.significance_score,
      title: r.title,
      countries: r.country_codes,
      publishedAt: iso(r.published_at)!,
      entities: (named.get(r.id) ?? []).sort(),
    })),
    2,
  );
  return { window: windowOf(start, now), signals_considered: rows.length, clusters };
}

/** The answer for one `min_signals`: the clusters that large, best first, at most 50. */
export function selectClusters(clusters: Cluster[], minSignals: number) {
  const kept = clusters.filter((c) => c.signal_count >= minSignals);
  return { total: kept.length, data: kept.slice(0, CLUSTERING.maxClusters) };
}
