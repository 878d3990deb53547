/**
 * What a signal says about its event beyond its text: upstream keys shared across feeds
 * (a CVE, a GLIDE number, a USGS/GDACS/EONET id), the hazard it reports (an earthquake's
 * epicentre, origin time and magnitude), and who published it (publisher families).
 */
import { kindsNamed } from '../reading/kinds';
import families from './publisher-families.json';

/** External-id namespaces that name an event across feeds, and the key each becomes. */
const KEY_OF_EXTERNAL: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^(?:cisa-kev|nvd):(CVE-\d{4}-\d{4,})$/i, (m) => `cve:${m[1]!.toUpperCase()}`],
  [/^(usgs|gdacs|eonet):(.+)$/i, (m) => `${m[1]!.toLowerCase()}:${m[2]}`],
];

const CVE = /\bCVE-\d{4}-\d{4,}\b/gi;
/** GLIDE numbers: hazard, year, serial, ISO3 (EQ-2024-000123-JPN). */
const GLIDE = /\b([A-Z]{2})-(\d{4})-(\d{6})-([A-Z]{3})\b/g;

/**
 * Upstream keys of a signal: from its external ids, plus a GLIDE number anywhere in its text
 * and a CVE its headline names alone (a roundup of several CVEs is not one event).
 */
export function upstreamKeys(externalIds: readonly string[], title: string, content: string): string[] {
  const keys = new Set<string>();
  for (const id of externalIds) {
    for (const [pattern, key] of KEY_OF_EXTERNAL) {
      const m = id.match(pattern);
      if (m) {
        keys.add(key(m));
        break;
      }
    }
  }
  for (const m of `${title}\n${content}`.matchAll(GLIDE)) keys.add(`glide:${m[0]}`);
  const cves = new Set([...title.matchAll(CVE)].map((m) => m[0].toUpperCase()));
  if (cves.size === 1) keys.add(`cve:${[...cves][0]}`);
  return [...keys].sort();
}

/** An earthquake as the linker compares it. */
export interface Quake {
  kind: 'earthquake';
  lat: number;
  lng: number;
  /** Origin time, epoch milliseconds. */
  at: number;
  magnitude: number;
}

/** "M 6.1 - 20 km SSE of …" (USGS), "Magnitude 6.1M" (GDACS), "6.1 Mw" / "6.1 M" (EONET, news). */
const MAGNITUDE = [
  /\bM\s?(\d(?:\.\d+)?)\b/,
  /\bmagnitude[:\s]+(\d(?:\.\d+)?)/i,
  /\b(\d(?:\.\d+)?)\s?(?:Mw|Mb|Ml|Ms|M)\b/,
];

/** GDACS publishes after the origin and writes it in its title: "… 26/11/2022 20:00 UTC". */
const ORIGIN = /\b(\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2}) UTC\b/;

function originOf(text: string): number | null {
  const m = text.match(ORIGIN);
  if (!m) return null;
  const at = Date.UTC(Number(m[3]), Number(m[2]) - 1, Number(m[1]), Number(m[4]), Number(m[5]));
  return Number.isFinite(at) ? at : null;
}

/**
 * The earthquake a disaster signal reports, when it has a point, a magnitude and says it is a
 * quake (a USGS id, or the word in its text): null otherwise. Its time is the origin time the
 * text states (GDACS), else the signal's publication time (USGS and EONET publish the origin).
 */
export function quakeOf(signal: {
  threatLayer: string;
  externalIds: readonly string[];
  title: string;
  content: string;
  lat: number | null;
  lng: number | null;
  publishedAt: Date;
}): Quake | null {
  if (signal.threatLayer !== 'disaster' || signal.lat === null || signal.lng === null) return null;
  const text = `${signal.title}\n${signal.content}`;
  const usgs = signal.externalIds.some((id) => id.startsWith('usgs:'));
  const gdacsQuake = signal.externalIds.some((id) => /^gdacs:EQ/i.test(id));
  if (!usgs && !gdacsQuake && !kindsNamed(text, 'disaster').includes('earthquake')) return null;
  let magnitude: number | null = null;
  for (const pattern of MAGNITUDE) {
    const m = text.match(pattern);
    const value = m ? Number(m[1]) : Number.NaN;
    if (Number.isFinite(value) && value > 0 && value < 10.5) {
      magnitude = value;
      break;
    }
  }
  if (magnitude === null) return null;
  return {
    kind: 'earthquake',
    lat: signal.lat,
    lng: signal.lng,
    at: originOf(text) ?? signal.publishedAt.getTime(),
    magnitude,
  };
}

/** Great-circle distance in kilometres. */
export function distanceKm(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
}

interface FamilyTable {
  families: Record<string, { names: string[]; domains: string[] }>;
}

const table = families as FamilyTable;
const familyByName = new Map<string, string>();
const familyByDomain = new Map<string, string>();
for (const [family, { names, domains }] of Object.entries(table.families)) {
  for (const name of names) familyByName.set(name.toLowerCase(), family);
  for (const domain of domains) familyByDomain.set(domain.toLowerCase(), family);
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return null;
  }
}

/**
 * The publisher a signal counts as: the family of its source's name, else of its link's
 * domain (or a parent domain), else the link's host (an aggregator's items keep their
 * outlets apart), else the source's name.
 */
export function publisherFamily(sourceName: string, sourceUrl: string): string {
  const byName = familyByName.get(sourceName.trim().toLowerCase());
  if (byName) return byName;
  const host = hostOf(sourceUrl);
  if (host) {
    const parts = host.split('.');
    for (let i = 0; i < parts.length - 1; i++) {
      const family = familyByDomain.get(parts.slice(i).join('.'));
      if (family) return family;
    }
    return host;
  }
  return sourceName.trim().toLowerCase();
}
