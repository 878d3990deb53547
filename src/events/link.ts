/**
 * Linking at ingest: puts each new signal into an event (an existing one, or its own), merges
 * events that upstream facts show to be one, and keeps every touched event's lead, publisher
 * count and its members' corroborated scores up to date. Runs inside the ingest transaction
 * BEFORE the new signals are written: it settles each one's event, lead flag, corroboration and
 * score (`LinkOutcome.members`), so the pipeline writes every new row once; stored rows are
 * updated only where a merge or the new members really change them. A bounded number of
 * statements per batch: one candidate lookup (each signal fetches at most `NEWS.maxCandidates`
 * events through the `event_terms` index), then set-based writes.
 */
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Database } from '../db/client';
import type { ExtractedEntity } from '../reading/entities';
import type { Layer } from '../vocab';
import { publisherFamily, quakeOf, upstreamKeys, type Quake } from './keys';
import {
  eventTextOf,
  eventTerms,
  featuresOf,
  linkBatch,
  lookupTerms,
  type CandidateEvent,
  type EventText,
  type NewSignal,
} from './match';
import { COMPATIBLE_LAYERS, corroboratedScore, NEWS } from './rules';

/** A new signal (not yet written), as ingest hands it over. */
export interface LinkInput {
  id: string;
  threatLayer: string;
  countryCodes: string[];
  publishedAt: Date;
  title: string;
  content: string;
  lat: number | null;
  lng: number | null;
  externalIds: readonly string[];
  entities: readonly ExtractedEntity[];
  /** The source's own score (before the corroboration term). */
  baseScore: number;
  /** Source name and item URL: its publisher family. */
  sourceName: string;
  sourceUrl: string;
  /** What the reader found (kind, dead, city), carried from the connector: news items only. */
  reading?: Pick<EventText, 'kind' | 'dead' | 'city'>;
}

/** A new signal's place in its event, settled before its row is written. */
export interface Membership {
  eventId: string;
  eventLead: boolean;
  corroboration: number;
  /** The corroborated score (`significance_score`). */
  score: number;
}

/** What linking did (tests and the bench read it). */
export interface LinkOutcome {
  /** Signal id → its event id. */
  events: Map<string, string>;
  /** New signal id → its event, lead flag, corroboration and score, for its INSERT. */
  members: Map<string, Membership>;
  created: number;
  joined: number;
  merged: number;
  /**
   * Founders of stored events this batch merged into others: echoes now (`event_id` is the
   * target's), so the aggregates stop counting them as events (the pipeline does, last).
   */
  unfounded: string[];
}

const CHUNK = 500;

function newSignal(input: LinkInput): NewSignal {
  const text = eventTextOf(input);
  return {
    id: input.id,
    threatLayer: input.threatLayer as Layer,
    countryCodes: input.countryCodes,
    publishedAt: input.publishedAt.getTime(),
    upstreamKeys: upstreamKeys(input.externalIds, input.title, input.content),
    quake: quakeOf({ ...input, threatLayer: input.threatLayer }),
    text,
    features: featuresOf(text),
  };
}

interface EventSignature {
  texts?: EventText[];
  quake?: Quake;
}

interface CandidateRow {
  /** The lookups (`CandidateLookup.i`) this event is a candidate of. */
  lookups: number[];
  id: string;
  threat_layer: string;
  country_codes: string[];
  first_ms: number;
  last_ms: number;
  created_ms: number;
  upstream_keys: string[];
  signature: EventSignature | string;
}

/** One lookup of `candidateQuery`: a signal's upstream keys, index terms and compatible layers. */
export interface CandidateLookup {
  i: number;
  keys: string[];
  terms: string[];
  layers: string[];
}

/**
 * The candidate lookup of a batch (exported for the bench, which EXPLAINs it on a large table).
 * Per lookup it reads at most `maxCandidates` events by key and terms x `perTerm` index rows by
 * term, then at most that many events by primary key: bounded, whatever the table holds. Each
 * event found comes back once, with the lookups it is a candidate of: the signals of one batch
 * tell few stories, so they share most of their candidates (10,000 pairs, 2,000 events).
 */
export function candidateQuery(lookups: CandidateLookup[]): SQL {
  return sql`WITH hits AS MATERIALIZED (
      SELECT q.i, c.id
      FROM jsonb_to_recordset(${JSON.stringify(lookups)}::jsonb) AS q(i int, keys text[], terms text[], layers text[])
      CROSS JOIN LATERAL (
        -- Two probes of the btree term index (event_terms_term_time_idx), each a bounded range read
        -- of the newest rows of a term (ORDER BY matches the index, DESC NULLS LAST): by upstream key
        -- ('k:<key>' terms, any layer), then by index term (at most terms x perTerm rows, however
        -- many events share a word and day). The ids then drive one primary-key read each (OFFSET 0
        -- and the lateral LIMIT 1 keep the planner, without statistics as on PGlite, from scanning
        -- the layer's events and joining them instead: that reads the whole window).
        (SELECT e.id FROM (SELECT DISTINCT hit.event_id FROM unnest(q.keys) AS k(key)
             CROSS JOIN LATERAL (SELECT t.event_id FROM event_terms t WHERE t.term = 'k:' || k.key
               ORDER BY t.last_seen_at DESC NULLS LAST LIMIT ${NEWS.maxCandidates}) hit OFFSET 0) ids
           CROSS JOIN LATERAL (SELECT e.id, e.merged_into FROM events e WHERE e.id = ids.event_id LIMIT 1) e
         WHERE e.merged_into IS NULL
         LIMIT ${NEWS.maxCandidates})
        UNION
        (SELECT e.id FROM (SELECT DISTINCT hit.event_id FROM unnest(q.terms) AS w(term)
             CROSS JOIN LATERAL (SELECT t.event_id FROM event_terms t WHERE t.term = w.term
               ORDER BY t.last_seen_at DESC NULLS LAST LIMIT ${NEWS.perTerm}) hit OFFSET 0) ids
           CROSS JOIN LATERAL (SELECT e.id, e.merged_into, e.threat_layer, e.last_seen_at FROM events e
             WHERE e.id = ids.event_id LIMIT 1) e
         WHERE e.merged_into IS NULL AND e.threat_layer = ANY(q.layers)
         ORDER BY e.last_seen_at DESC LIMIT ${NEWS.maxCandidates})) c)
    SELECT g.lookups, e.id, e.threat_layer, e.country_codes, e.upstream_keys, e.signature,
      (extract(epoch FROM e.first_seen_at) * 1000)::float8 AS first_ms,
      (extract(epoch FROM e.last_seen_at) * 1000)::float8 AS last_ms,
      (extract(epoch FROM e.created_at) * 1000)::float8 AS created_ms
    FROM (SELECT h.id, array_agg(h.i) AS lookups FROM hits h GROUP BY h.id OFFSET 0) g
    CROSS JOIN LATERAL (SELECT * FROM events e WHERE e.id = g.id LIMIT 1) e`;
}

/** Live candidate events of each signal: by shared key, or by index term within its layers. */
async function fetchCandidates(db: Database, signals: NewSignal[]): Promise<Map<number, CandidateEvent[]>> {
  const out = new Map<number, CandidateEvent[]>();
  const known = new Map<string, CandidateEvent>();
  // The lookup is a few hundred index reads: compiling it (JIT, on Postgres for costly-looking
  // plans) took ~900 ms of a 950 ms lookup on 200,000 events. Local to the ingest transaction.
  await db.execute(sql`SELECT set_config('jit', 'off', true)`);
  for (let start = 0; start < signals.length; start += CHUNK) {
    const lookups: CandidateLookup[] = signals.slice(start, start + CHUNK).map((s, k) => ({
      i: start + k,
      keys: s.upstreamKeys,
      terms: lookupTerms(s),
      layers: [...new Set([s.threatLayer, ...compatible(s.threatLayer)])],
    }));
    const rows = await queryRows<CandidateRow>(db, candidateQuery(lookups));
    for (const row of rows) {
      let event = known.get(row.id);
      if (!event) {
        const signature = (
          typeof row.signature === 'string' ? JSON.parse(row.signature) : row.signature
        ) as EventSignature;
        event = {
          id: row.id,
          threatLayer: row.threat_layer as Layer,
          countryCodes: row.country_codes,
          firstSeenAt: Number(row.first_ms),
          lastSeenAt: Number(row.last_ms),
          createdAt: Number(row.created_ms),
          upstreamKeys: row.upstream_keys,
          texts: signature.texts ?? [],
          quake: signature.quake ?? null,
        };
        known.set(row.id, event);
      }
      for (const i of row.lookups) {
        const list = out.get(i);
        if (list) list.push(event);
        else out.set(i, [event]);
      }
    }
  }
  return out;
}

const compatible = (layer: Layer): readonly Layer[] => COMPATIBLE_LAYERS[layer] ?? [layer];

/** A batch read for linking: its signals as the linker reads them, and their stored candidates. */
export interface LinkLookup {
  inputs: LinkInput[];
  signals: NewSignal[];
  /** Stored candidate events by position in `signals`. */
  stored: Map<number, CandidateEvent[]>;
}

/**
 * The first step of linking (`linkSignals`): reads the batch's texts and looks up their stored
 * candidate events (one statement per 500 signals). Ingest sends its other reads between this
 * and `settleLinks`, so Postgres answers them while the matching runs here.
 */
export async function lookupLinks(db: Database, inputs: LinkInput[]): Promise<LinkLookup> {
  const signals = inputs.map(newSignal);
  const stored =
    inputs.length === 0 ? new Map<number, CandidateEvent[]>() : await fetchCandidates(db, signals);
  return { inputs, signals, stored };
}

/**
 * Links new signals (not yet written) to events, within the caller's transaction, and settles
 * their membership. Signals are taken in publication order, so the first report founds the
 * event; later ones in the same batch can join it.
 */
export async function linkSignals(db: Database, inputs: LinkInput[]): Promise<LinkOutcome> {
  return settleLinks(db, await lookupLinks(db, inputs));
}

/** The second step of linking (`linkSignals`): matches the batch, writes its events, settles members. */
export async function settleLinks(
  db: Database,
  { inputs, signals, stored }: LinkLookup,
): Promise<LinkOutcome> {
  const outcome: LinkOutcome = {
    events: new Map(),
    members: new Map(),
    created: 0,
    joined: 0,
    merged: 0,
    unfounded: [],
  };
  if (inputs.length === 0) return outcome;
  const position = new Map(signals.map((signal, i) => [signal, i]));
  const batch = linkBatch(signals, (signal) => stored.get(position.get(signal)!) ?? [], Date.now());
  outcome.events = batch.events;
  outcome.created = batch.created.size;
  outcome.joined = batch.joined;
  outcome.merged = batch.merged;

  const fresh: FreshMember[] = inputs.map((input) => ({
    id: input.id,
    event_id: outcome.events.get(input.id)!,
    base: input.baseScore,
    published_ms: input.publishedAt.getTime(),
    source_name: input.sourceName,
    source_url: input.sourceUrl,
  }));
  // Only stored signals move (the batch's are not written yet), so each founder here was counted.
  // An event this batch created has no stored member (unless a merge folded a stored event into
  // it): it is settled here and written once, with its lead and counts, and never read back.
  const targets = new Set([...batch.mergedInto.keys()].map((id) => resolve(batch.mergedInto, id)));
  const settledHere = new Set([...batch.created].filter((id) => batch.touched.has(id) && !targets.has(id)));
  const counts = new Map<string, EventCounts>();
  for (const [eventId, list] of groupBy(
    fresh.filter((m) => settledHere.has(m.event_id)).map(freshRow),
    (m) => m.event_id,
  )) {
    const settled = settleEvent(list);
    counts.set(eventId, settled.counts);
    for (const m of settled.members) outcome.members.set(m.id, membership(eventId, m));
  }
  outcome.unfounded = (
    await writeEvents(db, [...batch.touched.values()], batch.created, batch.mergedInto, counts)
  ).sort();
  const refreshed = await refreshEvents(
    db,
    [...batch.touched.keys()].filter((id) => !settledHere.has(id)),
    fresh.filter((m) => !settledHere.has(m.event_id)),
  );
  for (const [id, member] of refreshed) outcome.members.set(id, member);
  return outcome;
}

/** The event `id` now is, following merges. */
function resolve(mergedInto: ReadonlyMap<string, string>, id: string): string {
  let target = id;
  while (mergedInto.has(target)) target = mergedInto.get(target)!;
  return target;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const list = out.get(key(item));
    if (list) list.push(item);
    else out.set(key(item), [item]);
  }
  return out;
}

/** Writes the batch's events and moves stored members of merged ones; returns the founders it moved. */
async function writeEvents(
  db: Database,
  touched: CandidateEvent[],
  created: Set<string>,
  mergedInto: Map<string, string>,
  counts: ReadonlyMap<string, EventCounts>,
): Promise<string[]> {
  const unfounded: string[] = [];
  const rows = touched.map((e) => ({
    ...counts.get(e.id),
    id: e.id,
    threat_layer: e.threatLayer,
    country_codes: e.countryCodes.slice(0, 50),
    first_seen_at: new Date(e.firstSeenAt).toISOString(),
    last_seen_at: new Date(e.lastSeenAt).toISOString(),
    upstream_keys: e.upstreamKeys.slice(0, 200),
    signature: { texts: e.texts, ...(e.quake ? { quake: e.quake } : {}) },
    terms: eventTerms(e),
    fresh: created.has(e.id),
  }));
  // Every event this batch changes, merged-away ones too, is locked in id order before any
  // write: concurrent ingests that touch the same events then queue instead of deadlocking.
  const locked = [
    ...new Set([...touched.filter((e) => !created.has(e.id)).map((e) => e.id), ...mergedInto.keys()]),
  ];
  if (locked.length > 0) {
    await db.execute(sql`
      SELECT id FROM events WHERE id IN (SELECT jsonb_array_elements_text(${JSON.stringify(locked)}::jsonb)::uuid)
      ORDER BY id FOR UPDATE`);
  }
  for (let i = 0; i < rows.length; i += CHUNK) {
    const part = JSON.stringify(rows.slice(i, i + CHUNK));
    // A new event settled in memory carries its lead and counts; any other gets placeholders,
    // which refreshEvents replaces from the members.
    await db.execute(sql`
      INSERT INTO events AS e (id, threat_layer, country_codes, first_seen_at, last_seen_at, lead_signal_id,
        max_score, signal_count, publisher_count, publisher_families, upstream_keys, signature, terms)
      SELECT v.id, v.threat_layer, v.country_codes, v.first_seen_at, v.last_seen_at, v.lead,
        coalesce(v.max_score, 0), coalesce(v.signal_count, 1), coalesce(v.publisher_count, 1),
        coalesce(v.families, '{}'), v.upstream_keys, v.signature, v.terms
      FROM jsonb_to_recordset(${part}::jsonb) AS v(id uuid, threat_layer text, country_codes text[],
        first_seen_at timestamptz, last_seen_at timestamptz, lead uuid, max_score float8, signal_count int,
        publisher_count int, families text[], upstream_keys text[], signature jsonb, terms text[], fresh boolean)
      ORDER BY v.id
      ON CONFLICT (id) DO UPDATE SET
        -- Candidates are read without a lock: facts a concurrent ingest added since are kept.
        country_codes = excluded.country_codes
          || ARRAY(SELECT c FROM unnest(e.country_codes) c WHERE c <> ALL(excluded.country_codes)),
        first_seen_at = least(e.first_seen_at, excluded.first_seen_at),
        last_seen_at = greatest(e.last_seen_at, excluded.last_seen_at),
        upstream_keys = ARRAY(SELECT DISTINCT k FROM unnest(e.upstream_keys || excluded.upstream_keys) k ORDER BY k),
        signature = excluded.signature, terms = excluded.terms, updated_at = now()`);
    // The candidate index follows the event's terms (a new event has none to drop). Its time is the
    // event's latest publication as written here: refreshEvents may later narrow it (a
    // retraction), which only reorders candidates.
    if (rows.slice(i, i + CHUNK).some((row) => !row.fresh)) {
      await db.execute(sql`
        DELETE FROM event_terms t USING jsonb_to_recordset(${part}::jsonb) AS v(id uuid, fresh boolean)
        WHERE NOT v.fresh AND t.event_id = v.id`);
    }
    await db.execute(sql`
      INSERT INTO event_terms (term, event_id, last_seen_at)
      SELECT DISTINCT w.term, v.id, v.last_seen_at
      FROM jsonb_to_recordset(${part}::jsonb) AS v(id uuid, last_seen_at timestamptz, terms text[], upstream_keys text[])
      CROSS JOIN LATERAL unnest(v.terms || ARRAY(SELECT 'k:' || k FROM unnest(v.upstream_keys) k)) AS w(term)
      ON CONFLICT DO NOTHING`);
  }
  if (mergedInto.size > 0) {
    const merges = JSON.stringify(
      [...mergedInto.keys()].map((id) => {
        let target = id;
        while (mergedInto.has(target)) target = mergedInto.get(target)!;
        return { id, target };
      }),
    );
    // Merged events keep their row (their id keeps redirecting); their members move.
    await db.execute(sql`
      INSERT INTO events AS e (id, threat_layer, first_seen_at, last_seen_at, max_score, merged_into)
      SELECT v.id, t.threat_layer, t.first_seen_at, t.last_seen_at, 0, v.target
      FROM jsonb_to_recordset(${merges}::jsonb) AS v(id uuid, target uuid) JOIN events t ON t.id = v.target
      ON CONFLICT (id) DO UPDATE SET merged_into = excluded.merged_into, lead_signal_id = NULL,
        signal_count = 0, terms = '{}', upstream_keys = '{}', updated_at = now()`);
    // A merged-away event is no candidate any more.
    await db.execute(sql`
      DELETE FROM event_terms t USING jsonb_to_recordset(${merges}::jsonb) AS v(id uuid, target uuid)
      WHERE t.event_id = v.id`);
    await db.execute(sql`
      UPDATE events SET merged_into = v.target, updated_at = now()
      FROM jsonb_to_recordset(${merges}::jsonb) AS v(id uuid, target uuid)
      WHERE events.merged_into = v.id`);
    // The founders moved here, as this statement saw them: an event a concurrent ingest merged
    // first has no members left to move, so its founder is not taken out of the counts twice.
    const founders = await queryRows<{ id: string }>(
      db,
      sql`WITH moved AS (
            UPDATE signals s SET event_id = v.target, updated_at = now()
            FROM jsonb_to_recordset(${merges}::jsonb) AS v(id uuid, target uuid)
            WHERE s.event_id = v.id
            RETURNING s.id, v.id AS event_id)
          SELECT id FROM moved WHERE id = event_id`,
    );
    unfounded.push(...founders.map((row) => row.id));
  }
  return unfounded;
}

interface MemberRow {
  id: string;
  event_id: string;
  base: number;
  score: number;
  published_ms: number;
  retracted: boolean;
  corroboration: number;
  event_lead: boolean;
  source_name: string;
  source_url: string;
  /** Not written yet (a member of the batch being linked). */
  fresh?: boolean;
}

/** The lead of a set of members: highest base score, then the earliest, then the smallest id. */
function leadOf(members: MemberRow[]): MemberRow | undefined {
  return [...members].sort(
    (a, b) => b.base - a.base || a.published_ms - b.published_ms || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  )[0];
}

/** A member not written yet: what the lead and publisher count need of it. */
type FreshMember = Pick<
  MemberRow,
  'id' | 'event_id' | 'base' | 'published_ms' | 'source_name' | 'source_url'
>;

const freshRow = (m: FreshMember): MemberRow => ({
  ...m,
  score: m.base,
  retracted: false,
  corroboration: 1,
  event_lead: true,
  fresh: true,
});

/** An event's lead and counts, as its live members make them. */
interface EventCounts {
  lead: string | null;
  max_score: number;
  signal_count: number;
  publisher_count: number;
  families: string[];
  first_seen_at: string;
  last_seen_at: string;
}

/** A member's place in its event once settled. */
interface SettledMember {
  id: string;
  fresh: boolean;
  lead: boolean;
  corroboration: number;
  score: number;
  /** True when a stored member's row differs from this. */
  changed: boolean;
}

/** An event's counts and each member's place, from its members (stored and fresh). Pure. */
function settleEvent(list: MemberRow[]): { counts: EventCounts; members: SettledMember[] } {
  const liveMembers = list.filter((m) => !m.retracted);
  const families = [...new Set(liveMembers.map((m) => publisherFamily(m.source_name, m.source_url)))].sort();
  const count = Math.max(1, families.length);
  const lead = leadOf(liveMembers);
  const times = (liveMembers.length > 0 ? liveMembers : list).map((m) => Number(m.published_ms));
  const members = list.map((m) => {
    const isLead = m.id === lead?.id;
    const score = m.retracted ? Number(m.score) : corroboratedScore(Number(m.base), count);
    const changed = isLead !== m.event_lead || count !== m.corroboration || score !== Number(m.score);
    return { id: m.id, fresh: m.fresh === true, lead: isLead, corroboration: count, score, changed };
  });
  return {
    counts: {
      lead: lead?.id ?? null,
      max_score: lead ? Number(lead.base) : Math.max(...list.map((m) => Number(m.base))),
      signal_count: liveMembers.length,
      publisher_count: count,
      families,
      first_seen_at: new Date(Math.min(...times)).toISOString(),
      last_seen_at: new Date(Math.max(...times)).toISOString(),
    },
    members,
  };
}

const membership = (eventId: string, m: SettledMember): Membership => ({
  eventId,
  eventLead: m.lead,
  corroboration: m.corroboration,
  score: m.score,
});

/**
 * Recomputes events from their members: lead, counts, publisher families, and on each stored
 * member `event_lead`, `corroboration` and the corroborated score (bumping `updated_at` of any
 * member that changed, so sync clients see it). `fresh` members (a batch not written yet) count
 * too; their settled membership is returned instead of written. Work is proportional to the
 * events' members.
 */
async function refreshEvents(
  db: Database,
  eventIds: string[],
  fresh: FreshMember[] = [],
): Promise<Map<string, Membership>> {
  const settled = new Map<string, Membership>();
  const freshByEvent = groupBy(fresh.map(freshRow), (m) => m.event_id);
  const ids = [...new Set(eventIds)];
  for (let i = 0; i < ids.length; i += CHUNK) {
    const part = ids.slice(i, i + CHUNK);
    const stored = await queryRows<MemberRow>(
      db,
      sql`SELECT s.id, s.event_id, coalesce(s.base_score, s.significance_score) AS base,
            s.significance_score AS score, (extract(epoch FROM s.published_at) * 1000)::float8 AS published_ms,
            s.retracted_at IS NOT NULL AS retracted, s.corroboration, s.event_lead,
            src.name AS source_name, s.source_url
          FROM signals s JOIN sources src ON src.id = s.source_id
          WHERE s.event_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(part)}::jsonb)::uuid)`,
    );
    const members = [...stored, ...part.flatMap((id) => freshByEvent.get(id) ?? [])];
    const eventRows: object[] = [];
    const memberRows: object[] = [];
    for (const [eventId, list] of groupBy(members, (m) => m.event_id)) {
      const { counts, members: placed } = settleEvent(list);
      eventRows.push({ id: eventId, ...counts });
      for (const m of placed) {
        if (m.fresh) settled.set(m.id, membership(eventId, m));
        else if (m.changed)
          memberRows.push({ id: m.id, lead: m.lead, corroboration: m.corroboration, score: m.score });
      }
    }
    if (eventRows.length === 0) continue;
    await db.execute(sql`
      UPDATE events e SET lead_signal_id = v.lead, max_score = v.max_score, signal_count = v.signal_count,
        publisher_count = v.publisher_count, publisher_families = v.families,
        first_seen_at = v.first_seen_at, last_seen_at = v.last_seen_at, updated_at = now()
      FROM jsonb_to_recordset(${JSON.stringify(eventRows)}::jsonb) AS v(id uuid, lead uuid, max_score float8,
        signal_count int, publisher_count int, families text[], first_seen_at timestamptz, last_seen_at timestamptz)
      WHERE e.id = v.id`);
    if (memberRows.length > 0) {
      await db.execute(sql`
        UPDATE signals s SET event_lead = v.lead, corroboration = v.corroboration,
          base_score = coalesce(s.base_score, s.significance_score), significance_score = v.score,
          updated_at = now()
        FROM jsonb_to_recordset(${JSON.stringify(memberRows)}::jsonb) AS v(id uuid, lead boolean, corroboration int, score float8)
        WHERE s.id = v.id`);
    }
  }
  return settled;
}

/** Refreshes the events of the given signals (after an upstream revision or retraction). */
export async function refreshEventsOfSignals(db: Database, signalIds: string[]): Promise<void> {
  if (signalIds.length === 0) return;
  const rows = await queryRows<{ event_id: string }>(
    db,
    sql`SELECT DISTINCT event_id FROM signals WHERE id IN ${signalIds}`,
  );
  await refreshEvents(
    db,
    rows.map((r) => r.event_id),
  );
}
