import { inArray, sql, type SQL } from 'drizzle-orm';
import { allowWriteTime, queryRows, type Database } from '../db/client';
import { entities, signalEntities, signals, sources } from '../db/schema';
import type { FieldError } from '../http/problem';
import { linkSignals, type LinkInput } from '../events/link';
import type { Classification } from '../reading/news';
import { regionOf } from '../vocab';
import { foldRows, foldSignals } from './aggregates';
import { ANOMALY_RULE, isAnomalous } from './anomaly';
import { extractEntities, type ExtractedEntity } from '../reading/entities';
import { nextTurn, turnEvery } from './turns';
import { fallbackTitle, validateItem, type IngestItem } from './validate';

export interface IngestResult {
  accepted: number;
  duplicates: number;
  rejected: number;
  errors: { index: number; errors: FieldError[] }[];
}

const CHUNK = 500;

/** Most items one ingest request may carry (docs/live-sources.md, "Ingest"); larger batches answer 413. */
export const MAX_INGEST_ITEMS = 5000;

function chunks<T>(items: T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Ingests a batch: validates each item (a bad one never blocks the good ones), de-dupes on
 * `source_url`, derives region and entities, flags anomalies, and writes everything in one
 * transaction, so nothing half-written stays. `now` is the arrival time item dates are checked
 * against. Entities are extracted before the transaction
 * opens, so CPU work never holds it (and the webhook dispatcher, which reads below the oldest
 * open transaction) back.
 */
export async function ingestSignals(
  db: Database,
  rawItems: unknown[],
  options: {
    now?: Date;
    externalIds?: ReadonlyMap<string, readonly string[]>;
    /** The reading of news items (src/reading), by source_url: linking compares its facts. */
    readings?: ReadonlyMap<string, Classification | undefined>;
  } = {},
): Promise<IngestResult> {
  const now = options.now ?? new Date();
  const result: IngestResult = { accepted: 0, duplicates: 0, rejected: 0, errors: [] };
  const seen = new Set<string>();
  const items: IngestItem[] = [];
  const turn = turnEvery();
  for (const [index, raw] of rawItems.entries()) {
    await turn();
    const checked = validateItem(raw, now);
    if (!checked.ok) {
      result.rejected += 1;
      result.errors.push({ index, errors: checked.errors });
    } else if (seen.has(checked.item.source_url)) {
      result.duplicates += 1;
    } else {
      seen.add(checked.item.source_url);
      items.push(checked.item);
    }
  }
  if (items.length === 0) return result;
  const extracted = new Map<string, ExtractedEntity[]>();
  for (const item of items) {
    await turn();
    extracted.set(item.source_url, extractEntities(`${item.title ?? ''}\n${item.content_display}`));
  }

  const inserted = await db.transaction(async (tx) => {
    await allowWriteTime(tx);
    const { ids: sourceIds, fills } = await upsertSources(tx as unknown as Database, items);
    const ids: string[] = [];
    const linking: LinkInput[] = [];
    let unfounded: readonly string[] = [];
    for (const part of chunks(items)) {
      const rows = await tx
        .insert(signals)
        .values(
          part.map((item) => {
            // Each new signal founds an event under its own id; linking may then move it.
            const id = item.id ?? crypto.randomUUID();
            return { ...signalRow(item, sourceIds.get(item.source.name)!), id, eventId: id };
          }),
        )
        .onConflictDoNothing()
        .returning({ id: signals.id, sourceUrl: signals.sourceUrl });
      const byUrl = new Map(part.map((item) => [item.source_url, item]));
      for (const row of rows) {
        ids.push(row.id);
        const item = byUrl.get(row.sourceUrl)!;
        linking.push(
          linkInput(
            row.id,
            item,
            extracted.get(row.sourceUrl)!,
            options.externalIds?.get(row.sourceUrl),
            options.readings?.get(row.sourceUrl),
          ),
        );
      }
      await nextTurn();
      await linkEntities(
        tx as unknown as Database,
        rows.map((row) => ({ id: row.id, entities: extracted.get(row.sourceUrl)! })),
      );
    }
    if (ids.length > 0) {
      const derive = items.filter((item) => item.is_anomaly === undefined).map((i) => i.source_url);
      await flagAnomalies(tx as unknown as Database, ids, new Set(derive));
      ({ unfounded } = await linkSignals(tx as unknown as Database, linking));
    }
    // Last: the counters are rows every ingest shares (a layer's total, a source's count), so
    // their locks are held only for the commit, not through linking.
    await updateAggregates(tx as unknown as Database, ids, fills, unfounded);
    return ids.length;
  });
  result.accepted = inserted;
  result.duplicates += items.length - inserted;
  return result;
}

function linkInput(
  id: string,
  item: IngestItem,
  found: ExtractedEntity[],
  externalIds = EMPTY,
  reading?: Classification,
): LinkInput {
  return {
    id,
    threatLayer: item.threat_layer,
    countryCodes: item.country_codes,
    publishedAt: new Date(item.published_at),
    title: item.title || fallbackTitle(item.content_display),
    content: item.content_display,
    lat: item.lat ?? null,
    lng: item.lng ?? null,
    externalIds,
    entities: found,
    ...(reading
      ? { reading: { kind: reading.kind, dead: reading.casualties.dead, city: item.city ?? null } }
      : {}),
  };
}
const EMPTY: readonly string[] = [];

function signalRow(item: IngestItem, sourceId: string): typeof signals.$inferInsert {
  return {
    ...(item.id ? { id: item.id } : {}),
    threatLayer: item.threat_layer,
    significanceScore: item.significance_score,
    baseScore: item.significance_score,
    signalValence: item.signal_valence,
    title: item.title || fallbackTitle(item.content_display),
    contentDisplay: item.content_display,
    countryCodes: item.country_codes,
    region: item.country_codes[0] ? regionOf(item.country_codes[0]) : null,
    city: item.city ?? null,
    lat: item.lat ?? null,
    lng: item.lng ?? null,
    language: item.language ?? item.source.language ?? null,
    sourceId,
    sourceUrl: item.source_url,
    publishedAt: new Date(item.published_at),
    collectedAt: new Date(item.collected_at ?? item.published_at),
    isAnomaly: item.is_anomaly ?? false,
  };
}

/**
 * One source per name across a batch: each of url, tier and language is the first value any
 * item gave, so an item that names the source without them never erases what another gave.
 */
export function batchSources(items: IngestItem[]): Map<string, IngestItem['source']> {
  const byName = new Map<string, IngestItem['source']>();
  for (const { source } of items) {
    const known = byName.get(source.name);
    byName.set(
      source.name,
      known
        ? {
            name: known.name,
            url: known.url ?? source.url,
            tier: known.tier ?? source.tier,
            language: known.language ?? source.language,
          }
        : source,
    );
  }
  return byName;
}

/** A known source's url or language the batch fills in (it had none). */
interface SourceFill {
  id: string;
  url: string | null;
  language: string | null;
}

/**
 * Creates unknown sources (tier `discovered` unless given) and returns ids by name, with the
 * gaps of known sources to fill (`updateAggregates` fills them: a source that exists keeps its
 * tier; a missing url or language is filled in, never overwritten). Nothing here locks a row
 * that exists: every ingest of a feed shares its source, and a lock taken here would be held
 * through linking to the commit, queueing concurrent ingests behind each other.
 */
async function upsertSources(
  db: Database,
  items: IngestItem[],
): Promise<{ ids: Map<string, string>; fills: SourceFill[] }> {
  const ids = new Map<string, string>();
  const fills: SourceFill[] = [];
  // New rows are inserted in one global order (by name), so concurrent ingests creating the
  // same sources wait for each other without deadlocking.
  const ordered = [...batchSources(items).values()].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  const read = (names: string[]) =>
    db
      .select({ id: sources.id, name: sources.name, url: sources.url, language: sources.language })
      .from(sources)
      .where(inArray(sources.name, names));
  for (const part of chunks(ordered)) {
    const known = new Map((await read(part.map((s) => s.name))).map((row) => [row.name, row]));
    const missing = part.filter((s) => !known.has(s.name));
    if (missing.length > 0) {
      const created = await db
        .insert(sources)
        .values(
          missing.map((s) => ({
            name: s.name,
            url: s.url ?? null,
            tier: s.tier ?? 'discovered',
            language: s.language ?? null,
          })),
        )
        .onConflictDoNothing({ target: sources.name })
        .returning({ id: sources.id, name: sources.name });
      for (const row of created) ids.set(row.name, row.id);
      // Created by a concurrent ingest meanwhile: read back, as a known source.
      const raced = missing.filter((s) => !ids.has(s.name)).map((s) => s.name);
      if (raced.length > 0) for (const row of await read(raced)) known.set(row.name, row);
    }
    for (const source of part) {
      const row = known.get(source.name);
      if (!row) continue;
      ids.set(source.name, row.id);
      if ((!row.url && source.url) || (!row.language && source.language))
        fills.push({ id: row.id, url: source.url ?? null, language: source.language ?? null });
    }
  }
  return { ids, fills };
}

/** Links each new signal to the entities extracted from it (before the transaction). */
async function linkEntities(db: Database, found: { id: string; entities: ExtractedEntity[] }[]) {
  const distinct = new Map<string, { name: string; type: string; normalized: string }>();
  for (const { entities: list } of found) {
    for (const e of list) {
      const normalized = e.name.toLowerCase();
      distinct.set(`${e.type}:${normalized}`, { name: e.name, type: e.type, normalized });
    }
  }
  if (distinct.size === 0) return;
  const entityIds = new Map<string, string>();
  // Same global lock order as for sources: concurrent ingests share entities.
  const orderedEntities = [...distinct.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, e]) => e);
  // Known entities are only read (a lock on a shared entity would be held to the commit); new
  // ones are inserted, and one a concurrent ingest inserted first is read back.
  for (const part of chunks(orderedEntities)) {
    const rows = await db
      .insert(entities)
      .values(part)
      .onConflictDoNothing({ target: [entities.normalized, entities.type] })
      .returning({ id: entities.id, type: entities.type, normalized: entities.normalized });
    for (const row of rows) entityIds.set(`${row.type}:${row.normalized}`, row.id);
    const unseen = part.filter((e) => !entityIds.has(`${e.type}:${e.normalized}`));
    if (unseen.length === 0) continue;
    const known = await queryRows<{ id: string; type: string; normalized: string }>(
      db,
      sql`SELECT e.id, e.type, e.normalized FROM entities e
          JOIN jsonb_to_recordset(${JSON.stringify(unseen)}::jsonb) AS v(type text, normalized text)
            ON e.type = v.type AND e.normalized = v.normalized`,
    );
    for (const row of known) entityIds.set(`${row.type}:${row.normalized}`, row.id);
  }
  const links = found.flatMap(({ id, entities: list }) =>
    list.map((e) => ({
      signalId: id,
      entityId: entityIds.get(`${e.type}:${e.name.toLowerCase()}`)!,
      mentions: e.count,
    })),
  );
  for (const part of chunks(links, 1000)) {
    await db.insert(signalEntities).values(part).onConflictDoNothing();
  }
}

/** The number of `sorted` values at most `x` (binary search). */
function countUpTo(sorted: number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Applies the anomaly rule to new signals whose item did not set `is_anomaly`. The publication
 * times of each (layer, primary country) pair the batch touches are read once, over the span its
 * signals need (exact to the microsecond), and each signal's two windows are counted in them by
 * binary search: one pass per pair, not two counts per signal over a busy pair's whole week.
 */
async function flagAnomalies(db: Database, ids: string[], deriveUrls: Set<string>) {
  const windowUs = ANOMALY_RULE.windowHours * 3_600_000_000;
  const spanUs = windowUs + ANOMALY_RULE.baselineDays * 86_400_000_000;
  const span = sql.raw(`interval '${ANOMALY_RULE.baselineDays} days ${ANOMALY_RULE.windowHours} hours'`);
  // Microseconds since the epoch, exact (extract gives numeric), and below 2^53.
  const micros = (column: SQL) => sql`(extract(epoch FROM ${column}) * 1000000)::bigint::text`;
  for (const part of chunks(ids)) {
    const batch = (
      await queryRows<{ id: string; source_url: string; pair: string; at: string }>(
        db,
        sql`SELECT id, source_url, threat_layer || ' ' || country_codes[1] AS pair, ${micros(sql`published_at`)} AS at
            FROM signals WHERE id IN ${part} AND cardinality(country_codes) > 0`,
      )
    ).filter((row) => deriveUrls.has(row.source_url));
    if (batch.length === 0) continue;
    const times = await queryRows<{ pair: string; at: string }>(
      db,
      sql`WITH pairs AS (
            SELECT threat_layer AS layer, country_codes[1] AS country,
              min(published_at) - ${span} AS lo, max(published_at) AS hi
            FROM signals WHERE id IN ${batch.map((row) => row.id)} GROUP BY 1, 2)
          SELECT p.layer || ' ' || p.country AS pair, ${micros(sql`o.published_at`)} AS at
          FROM pairs p JOIN signals o ON o.threat_layer = p.layer AND o.country_codes[1] = p.country
            AND o.published_at > p.lo AND o.published_at <= p.hi`,
    );
    const byPair = new Map<string, number[]>();
    for (const row of times) {
      const list = byPair.get(row.pair) ?? [];
      list.push(Number(row.at));
      byPair.set(row.pair, list);
    }
    for (const list of byPair.values()) list.sort((x, y) => x - y);
    const spiking = batch
      .filter((row) => {
        const sorted = byPair.get(row.pair) ?? [];
        const at = Number(row.at);
        const windowStart = countUpTo(sorted, at - windowUs);
        const recent = countUpTo(sorted, at) - windowStart;
        const baseline = windowStart - countUpTo(sorted, at - spanUs);
        return isAnomalous(recent, baseline);
      })
      .map((row) => row.id);
    if (spiking.length > 0) {
      await db.update(signals).set({ isAnomaly: true }).where(inArray(signals.id, spiking));
    }
  }
}

/**
 * Folds new signals into the hourly buckets, source coverage and source counters, and takes the
 * founders of events this batch merged away (`unfounded`) out of the event counts.
 */
async function updateAggregates(
  db: Database,
  ids: string[],
  fills: SourceFill[],
  unfounded: readonly string[],
) {
  // The batch's sources are locked in id order first (an UPDATE … FROM takes its rows in no set
  // order, and concurrent ingests share sources), then their gaps are filled.
  await db.execute(sql`
    SELECT id FROM sources
    WHERE id IN (SELECT source_id FROM signals
                 WHERE id IN (SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid))
       OR id IN (SELECT v.id FROM jsonb_to_recordset(${JSON.stringify(fills)}::jsonb) AS v(id uuid))
    ORDER BY id FOR NO KEY UPDATE`);
  if (fills.length > 0) {
    await db.execute(sql`
      UPDATE sources SET url = coalesce(sources.url, v.url), language = coalesce(sources.language, v.language)
      FROM jsonb_to_recordset(${JSON.stringify(fills)}::jsonb) AS v(id uuid, url text, language text)
      WHERE sources.id = v.id`);
  }
  for (const [k, part] of chunks(ids).entries()) {
    // Founders merged away stop counting as events; taken with the first chunk, so each bucket
    // row is still written once per statement, in key order.
    const rows = foldRows(part, k === 0 ? unfounded : []);
    await db.execute(sql`
      INSERT INTO signal_hourly AS h (bucket, region, threat_layer, signal_count, score_sum, score_max, crisis_count, anomaly_count, event_count)
      SELECT date_trunc('hour', published_at), coalesce(region, ''), threat_layer, sum(n), sum(n * score),
             coalesce(max(score) FILTER (WHERE n = 1), 0), coalesce(sum(n) FILTER (WHERE signal_valence = 'crisis'), 0),
             coalesce(sum(n) FILTER (WHERE is_anomaly), 0), sum(e)
      FROM ${rows} s
      GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT (bucket, region, threat_layer) DO UPDATE SET
        signal_count = h.signal_count + excluded.signal_count,
        score_sum = h.score_sum + excluded.score_sum,
        score_max = greatest(h.score_max, excluded.score_max),
        crisis_count = h.crisis_count + excluded.crisis_count,
        anomaly_count = h.anomaly_count + excluded.anomaly_count,
        event_count = h.event_count + excluded.event_count`);
    await db.execute(sql`
      INSERT INTO source_coverage AS sc (source_id, region, threat_layer, signal_count, last_seen_at)
      SELECT source_id, coalesce(region, ''), threat_layer, count(*), max(published_at)
      FROM signals WHERE id IN ${part}
      GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT (source_id, region, threat_layer) DO UPDATE SET
        signal_count = sc.signal_count + excluded.signal_count,
        last_seen_at = greatest(sc.last_seen_at, excluded.last_seen_at)`);
    await db.execute(sql`
      UPDATE sources SET signal_count = sources.signal_count + agg.n,
        last_seen_at = greatest(sources.last_seen_at, agg.last_seen)
      FROM (SELECT source_id, count(*)::int AS n, max(published_at) AS last_seen
            FROM signals WHERE id IN ${part} GROUP BY source_id) agg
      WHERE sources.id = agg.source_id`);
    await foldSignals(db, part, k === 0 ? unfounded : []);
  }
}

/** The signal columns an ingest item maps to (upstream revisions rewrite a stored row with them). */
export const signalColumns = signalRow;
