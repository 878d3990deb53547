/**
 * Ingest of connector items (`src/sources/*`): the bridge between a parsed feed document and the
 * ingest pipeline. New items go through `ingestSignals` (region, entities, anomaly, aggregates,
 * webhook delivery by ingest order); an item already stored under one of its external ids (or
 * its `source_url`) is judged by `revisionOf`: `same` counts as a duplicate, `revised` updates the
 * stored signal in place, `retracted` retracts it. Rules: src/sources/README.md, "Identity and
 * revisions", and docs/live-sources.md.
 */
import { and, arrayOverlaps, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import { allowWriteTime, queryRows, type Database } from '../db/client';
import { signals, sources } from '../db/schema';
import { refreshEventsOfSignals } from '../events/link';
import { configuredChat } from '../net/chat';
import type { OutboundFetch } from '../net/outbound';
import { gradeNewsItems, type LlmGraderConfig } from '../reading/llm';
import { retractSignal } from '../signals/sync';
import { moveSignalContribution, readSignalFacts } from '../ingest/aggregates';
import { revisionOf, revisionValence } from './revision';
import type { SourceRow } from './rows';
import { TooManyItemsError } from './common';
import type { Connector, ParseContext, ParseNotes, SourceItem } from './types';
import type { SourceTier } from '../vocab';
import { ingestSignals, signalColumns } from '../ingest/pipeline';
import { timestampProblem } from '../signals/timestamps';
import { turnEvery } from '../ingest/turns';
import { fallbackTitle, validateItem, type IngestItem, type Validated } from '../ingest/validate';

/** The source row a batch of connector items belongs to. */
export interface UpstreamSource {
  id: string;
  name: string;
  tier: SourceTier;
  url: string | null;
  language?: string | null;
}

/**
 * What one ingested document did. `updated` counts revisions and retractions; `duplicates`
 * items with nothing new (including a withdrawal of an item never stored); items skipped by
 * `maxAgeHours` are in no count. `ids`: the signals accepted or updated, in document order.
 */
export interface UpstreamResult {
  accepted: number;
  updated: number;
  duplicates: number;
  rejected: number;
  errors: { index: number; message: string }[];
  ids: string[];
}

interface Candidate {
  index: number;
  item: IngestItem;
  raw: SourceItem;
}

type Stored = Pick<
  typeof signals.$inferSelect,
  | 'id'
  | 'sourceId'
  | 'sourceUrl'
  | 'externalIds'
  | 'upstreamUpdatedAt'
  | 'significanceScore'
  | 'signalValence'
  | 'title'
  | 'contentDisplay'
  | 'retractedAt'
>;

/**
 * Ingests one document's items for `source`, atomically: a failure writes nothing.
 * `maxAgeHours` (polls) skips items whose newest time (published or upstream update) is older
 * than the window; omitted (backfill, admin ingest) keeps every item with its own dates.
 * A revision never touches `ingested_at`, so webhooks (which deliver in ingest order) do not
 * deliver it again; `updated_at` moves, so `updated_since` sync reports it.
 */
export async function ingestSourceItems(
  db: Database,
  source: UpstreamSource,
  items: SourceItem[],
  options: { now?: Date; maxAgeHours?: number } = {},
): Promise<UpstreamResult> {
  const now = options.now ?? new Date();
  const cutoff = options.maxAgeHours === undefined ? null : now.getTime() - options.maxAgeHours * 3_600_000;
  const result: UpstreamResult = { accepted: 0, updated: 0, duplicates: 0, rejected: 0, errors: [], ids: [] };
  const outcome = new Map<number, string>(); // index → signal id accepted or updated

  const candidates: Candidate[] = [];
  const seenIds = new Set<string>();
  const seenUrls = new Set<string>();
  const turn = turnEvery();
  for (const [index, raw] of items.entries()) {
    await turn();
    if (cutoff !== null && !raw.retracted && newest(raw) < cutoff) continue;
    const {
      external_ids: externalIds,
      upstream_updated_at: upstream,
      retracted,
      classification,
      ...fields
    } = raw;
    void [retracted, classification];
    const checked = withUpstreamTime(
      validateItem(
        {
          ...fields,
          language: fields.language ?? source.language ?? undefined,
          source: { name: source.name },
        },
        now,
      ),
      upstream,
    );
    if (!checked.ok) {
      result.rejected += 1;
      const message = checked.errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
      result.errors.push({ index, message });
      continue;
    }
    // The same upstream item twice in one document: the first copy stands.
    if (seenUrls.has(checked.item.source_url) || externalIds.some((id) => seenIds.has(id))) {
      result.duplicates += 1;
      continue;
    }
    seenUrls.add(checked.item.source_url);
    for (const id of externalIds) seenIds.add(id);
    candidates.push({ index, item: checked.item, raw });
  }

  if (candidates.length > 0) {
    await db.transaction(async (txn) => {
      const tx = txn as unknown as Database;
      await allowWriteTime(tx);
      const stored = await storedMatches(tx, candidates);
      const fresh: (Candidate & { id: string })[] = [];
      const revised: { candidate: Candidate; stored: Stored }[] = [];
      const retracted: string[] = [];
      for (const candidate of candidates) {
        const match = matchFor(stored, candidate, source.id);
        if (!match) {
          if (candidate.raw.retracted)
            result.duplicates += 1; // nothing stored to withdraw
          else fresh.push({ ...candidate, id: crypto.randomUUID() });
          continue;
        }
        // A retraction is final; a signal of another source under the same URL is not ours to change.
        if (match.retractedAt || (match.sourceId !== source.id && !overlaps(match, candidate))) {
          result.duplicates += 1;
          continue;
        }
        const verdict = revisionOf(
          {
            upstream_updated_at: match.upstreamUpdatedAt?.toISOString() ?? null,
            significance_score: match.significanceScore,
            signal_valence: match.signalValence as IngestItem['signal_valence'],
            title: match.title,
            content_display: match.contentDisplay,
            retracted: false,
          },
          { ...candidate.raw, ...candidate.item, title: titleOf(candidate.item) },
        );
        if (verdict === 'same') result.duplicates += 1;
        else if (verdict === 'retracted') {
          const before = await readSignalFacts(tx, match.id);
          if (await retractSignal(tx, match.id, now)) {
            retracted.push(match.id);
            await moveSignalContribution(tx, before, null);
            result.updated += 1;
            outcome.set(candidate.index, match.id);
          } else result.duplicates += 1;
        } else revised.push({ candidate, stored: match });
      }

      if (fresh.length > 0) {
        const ingested = await ingestSignals(
          tx,
          fresh.map(({ item, id }) => ({ ...item, id })),
          {
            now,
            externalIds: new Map(fresh.map(({ item, raw }) => [item.source_url, raw.external_ids])),
            readings: new Map(fresh.map(({ item, raw }) => [item.source_url, raw.classification])),
          },
        );
        result.duplicates += ingested.duplicates;
        const inserted = await stampIdentity(tx, fresh);
        for (const { id, index } of fresh) {
          if (!inserted.has(id)) continue; // lost a race on its source_url: a duplicate
          result.accepted += 1;
          outcome.set(index, id);
        }
      }

      if (revised.length > 0) {
        for (const { candidate, stored: s } of revised) {
          const before = await readSignalFacts(tx, s.id);
          await reviseSignal(tx, s, candidate);
          await moveSignalContribution(tx, before, await readSignalFacts(tx, s.id));
          result.updated += 1;
          outcome.set(candidate.index, s.id);
        }
      }
      // A revised score or a retraction changes its event's lead, counts and corroboration.
      const changed = [...revised.map((r) => r.stored.id), ...retracted];
      await refreshEventsOfSignals(tx, changed);
    });
  }
  result.ids = [...outcome.entries()].sort(([a], [b]) => a - b).map(([, id]) => id);
  return result;
}

const time = (iso: string | undefined): number => (iso ? Date.parse(iso) : Number.NaN);

/**
 * Adds the check of the item's upstream update time, which is stored too (as the instant it
 * parses to; an unreadable one is ignored, as before): from 1900 to 9999, or the item is
 * rejected. No future bound: it orders revisions only, never a list.
 */
function withUpstreamTime(checked: Validated, upstream: string | undefined): Validated {
  const ms = time(upstream);
  const problem = Number.isNaN(ms) ? null : timestampProblem(ms);
  if (!problem) return checked;
  const error = { path: 'upstream_updated_at', message: problem };
  return { ok: false, errors: checked.ok ? [error] : [...checked.errors, error] };
}

/** The item's newest known time (for the poll window). */
function newest(item: SourceItem): number {
  const times = [time(item.published_at), time(item.upstream_updated_at)].filter((t) => !Number.isNaN(t));
  return times.length > 0 ? Math.max(...times) : Number.POSITIVE_INFINITY;
}

function upstreamTime(item: SourceItem): Date | null {
  const t = time(item.upstream_updated_at);
  return Number.isNaN(t) ? null : new Date(t);
}

const titleOf = (item: IngestItem): string => item.title || fallbackTitle(item.content_display);

const overlaps = (stored: Stored, candidate: Candidate): boolean =>
  candidate.raw.external_ids.some((id) => stored.externalIds.includes(id));

/** Records the upstream identity of newly inserted signals; returns the ids that exist. */
async function stampIdentity(db: Database, fresh: (Candidate & { id: string })[]): Promise<Set<string>> {
  const done = new Set<string>();
  for (let i = 0; i < fresh.length; i += 500) {
    const values = fresh.slice(i, i + 500).map(({ id, raw }) => ({
      id,
      external_ids: raw.external_ids,
      upstream_updated_at: upstreamTime(raw)?.toISOString() ?? null,
      classification: raw.classification ?? null,
    }));
    const rows = await queryRows<{ id: string }>(
      db,
      sql`UPDATE signals s SET external_ids = v.external_ids, upstream_updated_at = v.upstream_updated_at,
            classification = v.classification
          FROM jsonb_to_recordset(${JSON.stringify(values)}::jsonb)
            AS v(id uuid, external_ids text[], upstream_updated_at timestamptz, classification jsonb)
          WHERE s.id = v.id
          RETURNING s.id`,
    );
    for (const row of rows) done.add(row.id);
  }
  return done;
}

/** Stored signals sharing an external id or a `source_url` with any candidate. */
async function storedMatches(db: Database, candidates: Candidate[]): Promise<Stored[]> {
  const externalIds = [...new Set(candidates.flatMap((c) => c.raw.external_ids))];
  const urls = candidates.map((c) => c.item.source_url);
  const conditions: SQL[] = [inArray(signals.sourceUrl, urls)];
  if (externalIds.length > 0) conditions.push(arrayOverlaps(signals.externalIds, externalIds));
  return db
    .select({
      id: signals.id,
      sourceId: signals.sourceId,
      sourceUrl: signals.sourceUrl,
      externalIds: signals.externalIds,
      upstreamUpdatedAt: signals.upstreamUpdatedAt,
      // The source's own score: the stored one may carry the event's corroboration term.
      significanceScore: sql<number>`coalesce(${signals.baseScore}, ${signals.significanceScore})`,
      signalValence: signals.signalValence,
      title: signals.title,
      contentDisplay: signals.contentDisplay,
      retractedAt: signals.retractedAt,
    })
    .from(signals)
    .where(or(...conditions));
}

/** The stored signal a candidate is: by external id first (upstream identity), else by URL. */
function matchFor(stored: Stored[], candidate: Candidate, sourceId: string): Stored | undefined {
  const byId = stored.filter((s) => overlaps(s, candidate));
  return (
    byId.find((s) => s.sourceId === sourceId) ??
    byId[0] ??
    stored.find((s) => s.sourceUrl === candidate.item.source_url)
  );
}

/** Writes a revision over the stored signal; `ingested_at` and `is_anomaly` stay. */
async function reviseSignal(db: Database, stored: Stored, { item, raw }: Candidate) {
  // Identity, ingest time, collection time and the anomaly flag stay as first ingested.
  const { id, sourceId, sourceUrl, collectedAt, isAnomaly, ...columns } = signalColumns(
    item,
    stored.sourceId,
  );
  void [id, sourceId, sourceUrl, collectedAt, isAnomaly];
  await db
    .update(signals)
    .set({
      ...columns,
      signalValence: revisionValence(raw),
      language: columns.language ?? undefined,
      externalIds: [...new Set([...stored.externalIds, ...raw.external_ids])],
      upstreamUpdatedAt: upstreamTime(raw) ?? stored.upstreamUpdatedAt,
      classification: raw.classification ?? null,
      // The database's now, as for retractions: sync clients ask for changes since the last
      // `updated_at` they saw.
      updatedAt: sql`now()`,
    })
    .where(and(sql`${signals.id} = ${stored.id}`, isNull(signals.retractedAt)));
}

/** A feed document its connector cannot read: nothing from it was ingested. */
export class UnparseableDocumentError extends Error {
  override name = 'UnparseableDocumentError';
}

/**
 * A connector's items, taken one by one with a turn of the event loop every `ITEMS_PER_TURN`:
 * connectors map (and classify) items lazily, so a large document never holds the process for
 * its whole parse. Throws what the connector throws (`ConnectorError`, `TooManyItemsError`).
 */
export async function readItems(
  connector: Connector,
  document: string,
  context: ParseContext,
): Promise<SourceItem[]> {
  const items: SourceItem[] = [];
  const turn = turnEvery();
  for (const item of connector.parse(document, context)) {
    items.push(item);
    await turn();
  }
  return items;
}

/** The optional LLM grader of news items (src/reading/llm.ts): off unless an LLM is configured. */
export interface NewsGrader {
  fetch: OutboundFetch;
  llm: LlmGraderConfig;
}

/** The grader the configuration sets up (the brief's LLM, `BRIEF_LLM_*`), or none. */
export function newsGrader(
  config: Parameters<typeof configuredChat>[0],
  fetch: OutboundFetch,
): NewsGrader | undefined {
  const llm = configuredChat(config);
  return llm && { fetch, llm };
}

/**
 * Connectors are pure: the optional LLM grader re-reads their news items on the ingest path
 * (every path: a poll, the admin ingest, `sources ingest`).
 */
export const gradeItems = (items: SourceItem[], grader?: NewsGrader): Promise<SourceItem[]> | SourceItem[] =>
  grader ? gradeNewsItems(items, grader.fetch, grader.llm) : items;

/**
 * Parses one raw feed document with `connector` and ingests it under `source` with no age
 * cut-off (backfill): what the admin ingest endpoint and `sources ingest` do.
 */
export async function ingestDocument(
  db: Database,
  connector: Connector,
  source: SourceRow,
  document: string,
  now: Date = new Date(),
  grader?: NewsGrader,
): Promise<UpstreamResult> {
  let items: SourceItem[];
  const notes: ParseNotes = { unreadLanguage: 0 };
  try {
    items = await readItems(connector, document, {
      source: {
        name: source.name,
        url: source.url ?? '',
        tier: source.tier as SourceTier,
        options: source.options as Record<string, unknown>,
      },
      now,
      notes,
    });
  } catch (error) {
    // Over the item cap: refused whole, and said so (413 at the admin route), not "unparseable".
    if (error instanceof TooManyItemsError) throw error;
    // Any failure to read the document (a ConnectorError, or a shape the parser did not expect).
    throw new UnparseableDocumentError(
      `The document is not a ${connector.name} feed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  items = await gradeItems(items, grader);
  const result = await ingestSourceItems(db, upstreamSource(source), items, { now });
  await recordParseNotes(db, source.id, notes);
  return result;
}

/** Adds what a parse left out to the source's health counters (`unread_language` in /sources). */
export async function recordParseNotes(db: Database, sourceId: string, notes: ParseNotes): Promise<void> {
  if (notes.unreadLanguage <= 0) return;
  await db
    .update(sources)
    .set({ unreadLanguageItems: sql`${sources.unreadLanguageItems} + ${notes.unreadLanguage}` })
    .where(eq(sources.id, sourceId));
}

/** The ingest view of a source row. */
export const upstreamSource = (row: SourceRow): UpstreamSource => ({
  id: row.id,
  name: row.name,
  tier: row.tier as SourceTier,
  url: row.url,
  language: row.language,
});
