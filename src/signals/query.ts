import { and, asc, desc, eq, gte, inArray, lte, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client';
import { signals, sources } from '../db/schema';
import type { Layer, Region, Valence } from '../vocab';

/** The filters of /api/v1/signals; feeds, export and webhooks use subsets of them. */
export interface SignalFilter {
  layers?: Layer[];
  minScore?: number;
  region?: Region;
  country?: string;
  city?: string;
  start?: Date;
  end?: Date;
  search?: string;
  valence?: Valence;
  bbox?: { minLat: number; minLng: number; maxLat: number; maxLng: number };
  anomaly?: boolean;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (ch) => `\\${ch}`);

/** The WHERE conditions for `filter`, each written to use an index of `signals`. */
export function signalConditions(filter: SignalFilter): SQL | undefined {
  const conditions: (SQL | undefined)[] = [
    filter.layers?.length ? inArray(signals.threatLayer, filter.layers) : undefined,
    filter.minScore ? gte(signals.significanceScore, filter.minScore) : undefined,
    filter.region ? eq(signals.region, filter.region) : undefined,
    filter.country ? sql`${signals.countryCodes} @> ARRAY[${filter.country}]::text[]` : undefined,
    filter.city ? sql`${signals.city} ILIKE ${`%${escapeLike(filter.city)}%`}` : undefined,
    filter.start ? gte(signals.publishedAt, filter.start) : undefined,
    filter.end ? lte(signals.publishedAt, filter.end) : undefined,
    filter.search ? sql`${signals.search} @@ websearch_to_tsquery('english', ${filter.search})` : undefined,
    filter.valence ? eq(signals.signalValence, filter.valence) : undefined,
    filter.bbox
      ? sql`point(${signals.lng}, ${signals.lat}) <@ box(point(${filter.bbox.minLng}, ${filter.bbox.minLat}), point(${filter.bbox.maxLng}, ${filter.bbox.maxLat}))`
      : undefined,
    filter.anomaly === undefined ? undefined : eq(signals.isAnomaly, filter.anomaly),
  ];
  return and(...conditions.filter(Boolean));
}

/** Score desc, then newest, then id: a total order, so pages never overlap or skip. */
export const signalOrder = [
  desc(signals.significanceScore),
  desc(signals.publishedAt),
  asc(signals.id),
] as const;

export const signalColumns = {
  id: signals.id,
  threatLayer: signals.threatLayer,
  significanceScore: signals.significanceScore,
  signalValence: signals.signalValence,
  title: signals.title,
  contentDisplay: signals.contentDisplay,
  countryCodes: signals.countryCodes,
  region: signals.region,
  city: signals.city,
  lat: signals.lat,
  lng: signals.lng,
  language: signals.language,
  publishedAt: signals.publishedAt,
  collectedAt: signals.collectedAt,
  ingestedAt: signals.ingestedAt,
  isAnomaly: signals.isAnomaly,
  sourceUrl: signals.sourceUrl,
  sourceId: sources.id,
  sourceName: sources.name,
  sourceTier: sources.tier,
};

export type SignalRow = {
  id: string;
  threatLayer: string;
  significanceScore: number;
  signalValence: string;
  title: string;
  contentDisplay: string;
  countryCodes: string[];
  region: string | null;
  city: string | null;
  lat: number | null;
  lng: number | null;
  language: string | null;
  publishedAt: Date;
  collectedAt: Date;
  ingestedAt: Date;
  isAnomaly: boolean;
  sourceUrl: string;
  sourceId: string;
  sourceName: string;
  sourceTier: string;
};

/** One page of signals in rank order; fetches `limit + 1` rows so callers can tell `has_more`. */
export async function listSignals(
  db: Database,
  filter: SignalFilter,
  page: { limit: number; offset: number },
): Promise<SignalRow[]> {
  return db
    .select(signalColumns)
    .from(signals)
    .innerJoin(sources, eq(sources.id, signals.sourceId))
    .where(signalConditions(filter))
    .orderBy(...signalOrder)
    .limit(page.limit + 1)
    .offset(page.offset);
}
