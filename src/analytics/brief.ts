import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { COUNTRIES } from '../countries';
import { queryRows, type Database, type SqlRow } from '../db/client';
import type { signals } from '../db/schema';
import { askJson, type ChatEndpoint } from '../net/chat';
import { OutboundError, type OutboundFetch } from '../net/outbound';
import { theaterWeight } from './formulas';
import { HOUR_MS, iso, windowOf } from './sql';

export const BRIEF = {
  windowHours: 4,
  /** The signals shown to the synthesizer and available for citation. */
  topSignals: 30,
  theaters: 5,
  threats: 5,
  entities: 8,
  /** The whole LLM call, connection to last byte, must finish within this. */
  llmTimeoutMs: 5000,
} as const;

type SignalRow = SqlRow<
  typeof signals,
  | 'id'
  | 'threatLayer'
  | 'significanceScore'
  | 'signalValence'
  | 'title'
  | 'countryCodes'
  | 'isAnomaly'
  | 'publishedAt'
>;

interface EntityRow {
  name: string;
  type: string;
  signal_count: number;
}

interface TotalsRow {
  signal_count: number;
  /** Distinct events among the window's signals (echoes counted once). */
  event_count: number;
  crisis_count: number;
  anomaly_count: number;
  country_count: number;
}

/** Everything the brief rests on: the window's signals (all of them, ranked), entities and totals. */
export interface BriefData {
  start: Date;
  end: Date;
  signals: {
    id: string;
    layer: string;
    score: number;
    valence: string;
    title: string;
    countries: string[];
    anomaly: boolean;
    publishedAt: string;
  }[];
  entities: EntityRow[];
  totals: TotalsRow;
}

/** Reads the past 4 hours: signals by score, top co-mentioned entities and totals. */
async function briefData(db: Database, now: Date): Promise<BriefData> {
  const start = new Date(now.getTime() - BRIEF.windowHours * HOUR_MS);
  const [s, e] = [start.toISOString(), now.toISOString()];
  const inWindow = sql`published_at > ${s}::timestamptz AND published_at <= ${e}::timestamptz`;
  // Sequential on purpose: one connection per request is what a Worker's Neon pool should hold.
  const signalRows = await queryRows<SignalRow>(
    db,
    // One signal per event (its strongest in the window): ten outlets telling a story are one
    // event. DISTINCT ON sorts the window's rows, a bounded set (4 hours).
    sql`SELECT * FROM (
          SELECT DISTINCT ON (event_id) id, threat_layer, significance_score::float8 AS significance_score, signal_valence,
                 title, country_codes, is_anomaly, published_at
          FROM signals WHERE ${inWindow}
          ORDER BY event_id, significance_score DESC, published_at DESC, id) e
        ORDER BY significance_score DESC, published_at DESC, id LIMIT 500`,
  );
  const entityRows = await queryRows<EntityRow>(
    db,
    sql`SELECT e.name, e.type, count(DISTINCT sg.event_id)::int AS signal_count
          FROM signals sg JOIN signal_entities se ON se.signal_id = sg.id JOIN entities e ON e.id = se.entity_id
          WHERE sg.published_at > ${s}::timestamptz AND sg.published_at <= ${e}::timestamptz
          GROUP BY e.name, e.type ORDER BY count(DISTINCT sg.event_id) DESC, e.name LIMIT ${BRIEF.entities}`,
  );
  const totals = await queryRows<TotalsRow>(
    db,
    sql`SELECT count(*)::int AS signal_count, count(DISTINCT event_id)::int AS event_count,
                 (count(*) FILTER (WHERE signal_valence = 'crisis'))::int AS crisis_count,
                 (count(*) FILTER (WHERE is_anomaly))::int AS anomaly_count,
                 (SELECT count(DISTINCT c)::int FROM signals, unnest(country_codes) c WHERE ${inWindow}) AS country_count
          FROM signals WHERE ${inWindow}`,
  );
  return {
    start,
    end: now,
    signals: signalRows.map((r) => ({
      id: r.id,
      layer: r.threat_layer,
      score: r.significance_score,
      valence: r.signal_valence,
      title: r.title,
      countries: r.country_codes,
      anomaly: r.is_anomaly,
      publishedAt: iso(r.published_at)!,
    })),
    entities: entityRows,
    totals: totals[0] ?? {
      signal_count: 0,
      event_count: 0,
      crisis_count: 0,
      anomaly_count: 0,
      country_count: 0,
    },
  };
}

export interface BriefBody {
  headline: string;
  executive_summary: string;
  active_theaters: { name: string; country_codes: string[]; summary: string; signal_ids: string[] }[];
  emerging_threats: { title: string; threat_layer: string | null; summary: string; signal_ids: string[] }[];
  key_entities: { name: string; type: string | null; signal_count: number | null; note: string | null }[];
}

const countryName = (code: string) => COUNTRIES[code]?.name ?? code;
const layerName = (layer: string) => layer.replace('_', ' ');
const fmt = (n: number) => (Math.round(n * 10) / 10).toString();

/**
 * The heuristic brief, from the data alone.
 * - Headline: the title of the highest-scoring signal (crises first on ties of score).
 * - Active theaters: countries ranked by theater weight (sum of the scores of the signals naming
 *   them), top 5, each citing its 3 strongest signals.
 * - Emerging threats: (primary country, layer) pairs with anomalous signals, ranked by their count
 *   then peak score, top 5; with no anomaly, the layers with the most crisis signals.
 * - Key entities: the 8 entities named in the most signals of the window.
 */
function heuristicBrief(data: BriefData): BriefBody {
  const { signals, totals } = data;
  if (signals.length === 0) {
    return {
      headline: 'No signals in the past 4 hours',
      executive_summary: `No signal was published between ${data.start.toISOString()} and ${data.end.toISOString()}.`,
      active_theaters: [],
      emerging_threats: [],
      key_entities: [],
    };
  }
  const top = [...signals].sort(
    (a, b) => b.score - a.score || Number(b.valence === 'crisis') - Number(a.valence === 'crisis'),
  )[0]!;

  const byCountry = new Map<string, typeof signals>();
  for (const s of signals) for (const c of s.countries) byCountry.set(c, [...(byCountry.get(c) ?? []), s]);
  const theaters = [...byCountry.entries()]
    .map(([code, list]) => ({ code, list, weight: theaterWeight(list.map((s) => s.score)) }))
    .sort((a, b) => b.weight - a.weight || a.code.localeCompare(b.code))
    .slice(0, BRIEF.theaters)
    .map(({ code, list, weight }) => {
      const layers = [...new Set(list.map((s) => s.layer))];
      return {
        name: countryName(code),
        country_codes: [code],
        summary: `${list.length} signal${list.length === 1 ? '' : 's'} (weight ${fmt(weight)}, peak ${fmt(
          Math.max(...list.map((s) => s.score)),
        )}) across ${layers.map(layerName).join(', ')}; strongest: "${list[0]!.title}".`,
        signal_ids: list.slice(0, 3).map((s) => s.id),
      };
    });

  const anomalies = new Map<string, typeof signals>();
  for (const s of signals.filter((x) => x.anomaly && x.countries[0])) {
    const key = `${s.countries[0]}|${s.layer}`;
    anomalies.set(key, [...(anomalies.get(key) ?? []), s]);
  }
  let threats: BriefBody['emerging_threats'] = [...anomalies.entries()]
    .sort(([ka, a], [kb, b]) => b.length - a.length || b[0]!.score - a[0]!.score || ka.localeCompare(kb))
    .slice(0, BRIEF.threats)
    .map(([key, list]) => {
      const [code, layer] = key.split('|') as [string, string];
      return {
        title: `${layerName(layer)[0]!.toUpperCase()}${layerName(layer).slice(1)} spike in ${countryName(code)}`,
        threat_layer: layer,
        summary: `${list.length} anomalous ${layerName(layer)} signal${list.length === 1 ? '' : 's'} above the 7-day baseline; peak ${fmt(list[0]!.score)}: "${list[0]!.title}".`,
        signal_ids: list.slice(0, 3).map((s) => s.id),
      };
    });
  if (threats.length === 0) {
    const crises = new Map<string, typeof signals>();
    for (const s of signals.filter((x) => x.valence === 'crisis'))
      crises.set(s.layer, [...(crises.get(s.layer) ?? []), s]);
    threats = [...crises.entries()]
      .sort(([ka, a], [kb, b]) => b.length - a.length || ka.localeCompare(kb))
      .slice(0, BRIEF.threats)
      .map(([layer, list]) => ({
        title: `${list.length} ${layerName(layer)} crisis signal${list.length === 1 ? '' : 's'}`,
        threat_layer: layer,
        summary: `Strongest: "${list[0]!.title}" (${fmt(list[0]!.score)}).`,
        signal_ids: list.slice(0, 3).map((s) => s.id),
      }));
  }

  const lead = theaters
    .slice(0, 3)
    .map((t) => t.name)
    .join(', ');
  return {
    headline: top.title,
    executive_summary:
      `In the 4 hours to ${data.end.toISOString().slice(11, 16)} UTC, ${totals.event_count} events were reported ` +
      `in ${totals.signal_count} signals ` +
      `across ${totals.country_count} countries: ${totals.crisis_count} crises and ${totals.anomaly_count} flagged as ` +
      `anomalous spikes. The most active theaters were ${lead}. The strongest signal (${fmt(top.score)}, ` +
      `${layerName(top.layer)}) reads: "${top.title}".`,
    active_theaters: theaters,
    emerging_threats: threats,
    key_entities: data.entities.map((e) => ({
      name: e.name,
      type: e.type,
      signal_count: e.signal_count,
      note: null,
    })),
  };
}

/** The JSON the LLM must answer with; anything else is rejected and the heuristic used. */
const LlmBriefSchema = z
  .object({
    headline: z.string().min(1).max(300),
    executive_summary: z.string().min(1).max(3000),
    active_theaters: z
      .array(
        z.object({
          name: z.string().min(1).max(100),
          summary: z.string().min(1).max(1000),
          signal_ids: z.array(z.string()).min(1).max(10),
        }),
      )
      .max(8),
    emerging_threats: z
      .array(
        z.object({
          title: z.string().min(1).max(200),
          summary: z.string().min(1).max(1000),
          signal_ids: z.array(z.string()).min(1).max(10),
        }),
      )
      .max(8),
    key_entities: z.array(z.object({ name: z.string().min(1).max(100), note: z.string().max(300) })).max(12),
  })
  .strict();

export interface LlmConfig extends ChatEndpoint {
  timeoutMs?: number;
}

const SYSTEM_PROMPT = `You are an intelligence analyst writing a watch brief for the past 4 hours.
Use only the signals given. Answer with one JSON object and nothing else, with exactly these keys:
{"headline": string, "executive_summary": string,
 "active_theaters": [{"name": string, "summary": string, "signal_ids": [ids]}],
 "emerging_threats": [{"title": string, "summary": string, "signal_ids": [ids]}],
 "key_entities": [{"name": string, "note": string}]}
Every signal_ids entry must be an id from the input. key_entities names must come from the input entities.`;

/** The most of an LLM answer read; a brief is a few KB of JSON. */
const LLM_ANSWER_CAP_BYTES = 1024 * 1024;

/**
 * Asks an OpenAI-compatible chat-completions endpoint to write the brief, within a time limit.
 * Throws on timeout, HTTP error, malformed JSON, a shape the schema refuses, or a citation of a
 * signal or entity that was not given; the caller then uses the heuristic.
 */
async function llmBrief(fetcher: OutboundFetch, llm: LlmConfig, data: BriefData): Promise<BriefBody> {
  const given = data.signals.slice(0, BRIEF.topSignals);
  const input = {
    window: windowOf(data.start, data.end),
    totals: data.totals,
    signals: given.map((s) => ({
      id: s.id,
      layer: s.layer,
      score: s.score,
      valence: s.valence,
      anomaly: s.anomaly,
      countries: s.countries,
      title: s.title,
    })),
    entities: data.entities,
  };
  const timeoutMs = llm.timeoutMs ?? BRIEF.llmTimeoutMs;
  const answer = await askJson(fetcher, llm, {
    system: SYSTEM_PROMPT,
    user: JSON.stringify(input),
    temperature: 0.2,
    timeoutMs,
    maxBytes: LLM_ANSWER_CAP_BYTES,
  });
  const parsed = LlmBriefSchema.parse(answer);

  const ids = new Set(given.map((s) => s.id));
  const cited = [...parsed.active_theaters, ...parsed.emerging_threats].flatMap((x) => x.signal_ids);
  const unknown = cited.filter((id) => !ids.has(id));
  if (unknown.length > 0) throw new Error(`LLM cited ${unknown.length} signal id(s) it was not given`);
  const entityOf = new Map(data.entities.map((e) => [e.name.toLowerCase(), e]));
  if (parsed.key_entities.some((k) => !entityOf.has(k.name.toLowerCase()))) {
    throw new Error('LLM named an entity it was not given');
  }
  const signalOf = new Map(given.map((s) => [s.id, s]));
  return {
    headline: parsed.headline,
    executive_summary: parsed.executive_summary,
    active_theaters: parsed.active_theaters.map((t) => ({
      name: t.name,
      country_codes: [...new Set(t.signal_ids.flatMap((id) => signalOf.get(id)!.countries))],
      summary: t.summary,
      signal_ids: t.signal_ids,
    })),
    emerging_threats: parsed.emerging_threats.map((t) => {
      const layers = [...new Set(t.signal_ids.map((id) => signalOf.get(id)!.layer))];
      return {
        title: t.title,
        threat_layer: layers.length === 1 ? layers[0]! : null,
        summary: t.summary,
        signal_ids: t.signal_ids,
      };
    }),
    key_entities: parsed.key_entities.map((k) => {
      const e = entityOf.get(k.name.toLowerCase())!;
      return { name: e.name, type: e.type, signal_count: e.signal_count, note: k.note };
    }),
  };
}

/**
 * The watch brief: the LLM's when configured and it answers well in time, else the heuristic.
 * Says which produced it, why a fallback happened, and every signal id it cites.
 */
export async function watchBrief(
  db: Database,
  now: Date,
  options: {
    fetch: OutboundFetch;
    llm?: LlmConfig;
    log?: { warn(m: string, f?: Record<string, unknown>): void };
  },
) {
  const data = await briefData(db, now);
  let body: BriefBody | null = null;
  let fallbackReason: string | null = options.llm ? null : 'no LLM configured';
  if (options.llm && data.signals.length > 0) {
    try {
      body = await llmBrief(options.fetch, options.llm, data);
    } catch (error) {
      fallbackReason =
        error instanceof Error &&
        (error.name === 'TimeoutError' ||
          error.name === 'AbortError' ||
          (error instanceof OutboundError && error.kind === 'timeout'))
          ? `LLM did not answer within ${options.llm.timeoutMs ?? BRIEF.llmTimeoutMs} ms`
          : error instanceof OutboundError
            ? `LLM request failed (${error.kind})`
            : error instanceof z.ZodError
              ? 'LLM answer did not match the brief schema'
              : error instanceof SyntaxError
                ? 'LLM answer was not valid JSON'
                : error instanceof Error
                  ? error.message
                  : 'LLM call failed';
      options.log?.warn('brief LLM fallback', { reason: fallbackReason });
    }
  } else if (options.llm) {
    fallbackReason = 'no signals to synthesize';
  }
  const generator = body ? ('llm' as const) : ('heuristic' as const);
  body ??= heuristicBrief(data);
  const cited = [
    ...new Set([...body.active_theaters, ...body.emerging_threats].flatMap((x) => x.signal_ids)),
  ];
  const headlineSignal = generator === 'heuristic' ? data.signals[0]?.id : undefined;
  return {
    window: windowOf(data.start, data.end),
    generated_at: now.toISOString(),
    generator,
    model: generator === 'llm' ? (options.llm?.model ?? null) : null,
    fallback_reason: generator === 'llm' ? null : fallbackReason,
    ...body,
    signal_ids: headlineSignal && !cited.includes(headlineSignal) ? [headlineSignal, ...cited] : cited,
    numbers: data.totals,
  };
}
