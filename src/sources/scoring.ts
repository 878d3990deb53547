/**
 * Significance scores of connector items on the API's 0–10 scale: pure functions of each
 * feed's own severity facts, then the source tier. The table and its reasoning are in
 * ./README.md ("Scores"); every constant here appears there, and test/sources/scoring.test.ts
 * pins hand-computed values.
 */
import { clamp, tenth } from '../numbers';
import type { SourceTier, Valence } from '../vocab';

/** Added to every base score: agencies as published, operator feeds a little less, discovered less. */
export const TIER_ADJUSTMENT: Record<SourceTier, number> = { core: 0, community: -0.5, discovered: -1 };

/** Below this final score a first report is an `update`, not a `crisis`. */
const CRISIS_THRESHOLD = 4;

/** The final score: base plus tier, clamped to 0–10, one decimal. */
export function finalScore(base: number, tier: SourceTier): number {
  return tenth(clamp(base + TIER_ADJUSTMENT[tier], 0, 10));
}

/** Valence of a first report: `resolution` when upstream says it ended, else by score. */
export function firstReportValence(score: number, ended = false): Valence {
  if (ended) return 'resolution';
  return score >= CRISIS_THRESHOLD ? 'crisis' : 'update';
}

// USGS ------------------------------------------------------------------------------------------

const PAGER_FLOOR: Record<string, number> = { green: 0, yellow: 6, orange: 7.5, red: 9 };

export interface QuakeFacts {
  mag: number | null;
  alert: string | null;
  tsunami: number | null;
  sig: number | null;
}

/** max(magnitude − 1, PAGER floor) + 0.5 tsunami product + 0.5 when sig ≥ 1000. */
export function usgsBase({ mag, alert, tsunami, sig }: QuakeFacts): number {
  const byMagnitude = clamp((mag ?? 0) - 1, 0, 8);
  const byPager = PAGER_FLOOR[alert ?? ''] ?? 0;
  return Math.max(byMagnitude, byPager) + (tsunami ? 0.5 : 0) + ((sig ?? 0) >= 1000 ? 0.5 : 0);
}

// GDACS -----------------------------------------------------------------------------------------

const GDACS_LEVEL: Record<string, number> = { green: 3, orange: 6, red: 8.5 };

export interface GdacsFacts {
  alertLevel: string;
  eventType: string;
  severityValue: number | null;
  severityUnit: string;
}

/**
 * Alert level base (Green 3, Orange 6, Red 8.5) plus a bounded severity bonus within the level:
 * earthquakes +0.5 per magnitude above 5 (≤ 1.5); cyclones +0.01 per km/h above 119 (≤ 1.5).
 */
export function gdacsBase({ alertLevel, eventType, severityValue, severityUnit }: GdacsFacts): number {
  const base = GDACS_LEVEL[alertLevel.toLowerCase()] ?? 3;
  const v = severityValue ?? 0;
  let bonus = 0;
  if (eventType === 'EQ') bonus = clamp((v - 5) * 0.5, 0, 1.5);
  else if (eventType === 'TC' && /km\/h/i.test(severityUnit)) bonus = clamp((v - 119) * 0.01, 0, 1.5);
  return base + bonus;
}

// EONET -----------------------------------------------------------------------------------------

const EONET_CATEGORY: Record<string, number> = {
  severeStorms: 5,
  volcanoes: 5,
  floods: 5,
  earthquakes: 5,
  landslides: 4,
  drought: 4,
  tempExtremes: 4,
  manmade: 4,
  wildfires: 3,
  snow: 3,
  dustHaze: 2,
  seaLakeIce: 1,
  waterColor: 1,
};

/**
 * Category base plus magnitude: storm wind +1 per 30 kts above 34 (≤ 3); fire area
 * +1 per tenfold above 1,000 acres (≤ 3). Other units add nothing.
 */
export function eonetBase(category: string, magnitude: number | null, unit: string | null): number {
  const base = EONET_CATEGORY[category] ?? 3;
  if (magnitude === null || magnitude <= 0) return base;
  if (unit === 'kts') return base + clamp((magnitude - 34) / 30, 0, 3);
  if (unit === 'acres') return base + clamp(Math.log10(magnitude) - 3, 0, 3);
  return base;
}

// NWS -------------------------------------------------------------------------------------------

const NWS_SEVERITY: Record<string, number> = {
  Extreme: 8,
  Severe: 6,
  Moderate: 4,
  Minor: 2,
  Unknown: 2,
};
const NWS_URGENCY: Record<string, number> = {
  Immediate: 1,
  Expected: 0.5,
  Future: 0,
  Past: -1,
  Unknown: 0,
};
const NWS_CERTAINTY: Record<string, number> = {
  Observed: 0.5,
  Likely: 0,
  Possible: -0.5,
  Unlikely: -1,
  Unknown: -0.5,
};

/** CAP severity base + urgency + certainty adjustments. */
export function nwsBase(severity: string, urgency: string, certainty: string): number {
  return (NWS_SEVERITY[severity] ?? 2) + (NWS_URGENCY[urgency] ?? 0) + (NWS_CERTAINTY[certainty] ?? -0.5);
}

// Cyber -----------------------------------------------------------------------------------------

/** Every KEV entry is exploited in the wild (6); known ransomware use adds 2. */
export function kevBase(knownRansomware: boolean): number {
  return 6 + (knownRansomware ? 2 : 0);
}

/** CVSS base score − 3 (9.0 → 6, 10 → 7), + 1.5 when NVD records it in CISA's KEV. */
export function nvdBase(cvss: number, inKev: boolean): number {
  return clamp(cvss - 3, 0, 10) + (inKev ? 1.5 : 0);
}

// Health ----------------------------------------------------------------------------------------

/** A WHO Disease Outbreak News item is 6; a high-consequence pathogen (Ebola, Marburg...) is 7.5. */
export function whoDonBase(highConsequence: boolean): number {
  return highConsequence ? 7.5 : 6;
}

// Free text -------------------------------------------------------------------------------------

/** A ReliefWeb report labelled by disaster type or theme: a situation report, below the crisis line. */
export const RELIEFWEB_BASE = 3.5;
