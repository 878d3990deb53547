/**
 * The one ingest path (the admin endpoint, polls, `sources ingest`, the CLI, the demo seed): a
 * batch's new signals have every fact settled (source, anomaly, event, lead, corroboration,
 * score, upstream identity) BEFORE one INSERT per row; stored rows are only updated where
 * linking or a revision really changes them; the shared counters are written last.
 * src/sources/README.md and src/events/README.md describe the steps.
 */
import { sql } from 'drizzle-orm';
import { allowWriteTime, queryRows, type Database } from '../db/client';
import { signals } from '../db/schema';
import type { FieldError } from '../http/problem';
import { lookupLinks, settleLinks } from '../events/link';
import { countNewSignals, type CountedSignal } from './aggregates';
import { spikingSignals } from './anomaly';
import { settleSources, upsertSources } from './batch-sources';
import { chunks } from './chunks';
import { draftOf, linkInput, newSignalRow, type SignalDraft } from './draft';
import { extractEntities } from '../reading/entities';
import { entityText } from '../events/match';
import { entityIds, linkEntities } from './entity-links';
import { insertRows } from './insert-rows';
import { nextTurn, turnEvery } from './turns';
import { validateItem, type IngestItem } from './validate';

export interface IngestResult {
  accepted: number;
  duplicates: number;
  rejected: number;
  errors: { index: number; errors: FieldError[] }[];
}

/** Most items one ingest request may carry (docs/live-sources.md, "Ingest"); larger batches answer 413. */
export const MAX_INGEST_ITEMS = 5000;

/** What a committed ingest wrote: the ids of its new signals, in the order given. */
export interface Committed {
  ids: string[];
}

/**
 * Ingests a batch of raw items: validates each (a bad one never blocks the good ones), de-dupes
 * on `source_url`, and stores the rest in one transaction (`storeSignals`), so nothing
 * half-written stays. `now` is the arrival time item dates are checked against. Entities are
 * extracted before the transaction opens, so CPU work never holds it (and the webhook
 * dispatcher, which reads below the oldest open transaction) back. `onCommitted` hears the ids
 * written once the transaction has committed (nothing when it did not).
 */
export async function ingestSignals(
  db: Database,
  rawItems: unknown[],
  options: {
    now?: Date;
    externalIds?: ReadonlyMap<string, readonly string[]>;
    onCommitted?: (committed: Committed) => void;
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
  const drafts = await withEntities(
    items.map((item) => draftOf(item, options.externalIds?.get(item.source_url))),
  );
  const ids = await db.transaction(async (tx) => {
    await allowWriteTime(tx);
    return storeSignals(tx, drafts);
  });
  options.onCommitted?.({ ids });
  result.accepted = ids.length;
  result.duplicates += items.length - ids.length;
  return result;
}

/** Extracts the entities of drafts that lack them, with a turn of the event loop every so often. */
async function withEntities(drafts: SignalDraft[]): Promise<SignalDraft[]> {
  const turn = turnEvery();
  for (const draft of drafts) {
    if (draft.entities) continue;
    await turn();
    draft.entities = extractEntities(
      entityText(draft.item.title ?? '', draft.item.content_display, draft.classification !== null),
    );
  }
  return drafts;
}

/**
 * Stores validated drafts (distinct `source_url`s) in the caller's transaction; returns the ids
 * written, in draft order (a draft whose URL is stored already is a duplicate). Steps: the
 * batch's URLs are locked (so a concurrent ingest of the same item waits and then sees it),
 * sources read or created, the anomaly rule and linking settle each row, one INSERT per row,
 * entity links, and last the sources' gaps and every counter.
 */
export async function storeSignals(tx: Database, drafts: SignalDraft[]): Promise<string[]> {
  if (drafts.length === 0) return [];
  await lockUrls(tx, drafts);
  const { ids: sourceIds, fills } = await upsertSources(
    tx,
    drafts.map((d) => d.item),
  );
  const stored = await storedUrls(tx, drafts);
  const fresh = await withEntities(drafts.filter((d) => !stored.has(d.item.source_url)));
  let unfounded: readonly string[] = [];
  const written: CountedSignal[] = [];
  if (fresh.length > 0) {
    const lookup = await lookupLinks(tx, fresh.map(linkInput));
    // Sent before linking matches the batch, which is CPU here: Postgres reads the anomaly rule's
    // week of rows and finds or creates the batch's entities meanwhile, one statement at a time
    // beside linking's writes (the connection takes them in turn). The turn lets the first go out
    // before the matching starts.
    const reads = async () => ({
      spiking: await spikingSignals(tx, fresh),
      entities: await entityIds(
        tx,
        fresh.flatMap((d) => d.entities!),
      ),
    });
    const [{ spiking, entities }, linked] = await Promise.all([
      reads(),
      nextTurn().then(() => settleLinks(tx, lookup)),
    ]);
    unfounded = linked.unfounded;
    for (const part of chunks(fresh)) {
      const rows = part.map((d) => {
        const anomalous = d.item.is_anomaly ?? spiking.has(d.id);
        return newSignalRow(d, sourceIds.get(d.item.source.name)!, anomalous, linked.members.get(d.id)!);
      });
      await tx.execute(insertRows(signals, rows));
      written.push(...rows);
      await nextTurn();
      await linkEntities(
        tx,
        part.map((d) => ({ id: d.id, entities: d.entities! })),
        entities,
      );
    }
  }
  const ids = fresh.map((d) => d.id);
  // Last: the counters are rows every ingest shares (a layer's total, a source's count), so
  // their locks are held only for the commit, not through linking.
  await settleSources(
    tx,
    fresh.map((d) => sourceIds.get(d.item.source.name)!),
    fills,
  );
  await countNewSignals(tx, written, unfounded);
  return ids;
}

/**
 * Takes a transaction-scoped lock per `source_url` (hashed), in one global order: an ingest of
 * an item another open ingest is writing waits for it to end, then finds it stored. Items that
 * differ never wait on each other (short of a hash collision).
 */
async function lockUrls(tx: Database, drafts: SignalDraft[]) {
  const urls = JSON.stringify(drafts.map((d) => d.item.source_url));
  await tx.execute(sql`
    SELECT pg_advisory_xact_lock(k) FROM (
      SELECT DISTINCT hashtextextended(u, 0) AS k FROM jsonb_array_elements_text(${urls}::jsonb) AS u
      ORDER BY k OFFSET 0) keys`);
}

/** The drafts' URLs already stored (by an earlier ingest): one statement, the URLs as one parameter. */
async function storedUrls(tx: Database, drafts: SignalDraft[]): Promise<Set<string>> {
  const urls = JSON.stringify(drafts.map((d) => d.item.source_url));
  const rows = await queryRows<{ source_url: string }>(
    tx,
    sql`SELECT s.source_url FROM jsonb_array_elements_text(${urls}::jsonb) AS u(url)
        JOIN signals s ON s.source_url = u.url`,
  );
  return new Set(rows.map((row) => row.source_url));
}
