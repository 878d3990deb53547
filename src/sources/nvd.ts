import {
  clip,
  content,
  isRecord,
  isoDate,
  item,
  num,
  parseJson,
  requireArray,
  title,
  plainText,
} from './common';
import { finalScore, firstReportValence, nvdBase } from './scoring';
import {
  ConnectorError,
  type Connector,
  type ParseContext,
  type SourceConfig,
  type SourceItem,
} from './types';

/** Default CVSS floor: only critical CVEs (CVSS ≥ 9.0) become signals. Source option `min_cvss`. */
const NVD_DEFAULT_FLOOR = 9.0;
/** Default look-back of each poll (source option `window_hours`); overlapping windows dedupe on the CVE id. */
const NVD_DEFAULT_WINDOW_HOURS = 24;

const METRIC_ORDER = ['cvssMetricV40', 'cvssMetricV31', 'cvssMetricV30', 'cvssMetricV2'] as const;

/** NVD's own (`Primary`) base score of the newest CVSS version present, else that version's first score. */
function nvdCvss(metrics: unknown): { score: number; version: string } | null {
  if (!isRecord(metrics)) return null;
  for (const key of METRIC_ORDER) {
    const list = Array.isArray(metrics[key]) ? (metrics[key] as unknown[]).filter(isRecord) : [];
    const chosen = list.find((m) => m.type === 'Primary') ?? list[0];
    const data = chosen && isRecord(chosen.cvssData) ? chosen.cvssData : null;
    const score = data ? num(data.baseScore) : null;
    if (score !== null) return { score, version: typeof data?.version === 'string' ? data.version : key };
  }
  return null;
}

/** The source's CVSS floor: option `min_cvss` (0–10) or 9.0. */
function nvdFloor(source: SourceConfig): number {
  const floor = num(source.options.min_cvss);
  return floor !== null && floor >= 0 && floor <= 10 ? floor : NVD_DEFAULT_FLOOR;
}

/**
 * NVD CVE API 2.0. Identity is the CVE id; `lastModified` is the revision time; `vulnStatus:
 * Rejected` withdraws the CVE (retracted). Only CVEs at or above the CVSS floor become signals.
 */
export const nvd: Connector = {
  name: 'nvd',
  accept: 'application/json',
  // 5 requests per rolling 30 s without a key; one windowed request every two hours is far below.
  defaultIntervalMinutes: 120,
  requestUrl(source, now) {
    const hours = num(source.options.window_hours) ?? NVD_DEFAULT_WINDOW_HOURS;
    const window = Math.min(Math.max(hours, 1), 24 * 120); // NVD refuses ranges over 120 days
    const stamp = (d: Date): string => d.toISOString().replace('Z', '+00:00');
    const url = new URL(source.url);
    url.searchParams.set('lastModStartDate', stamp(new Date(now.getTime() - window * 3_600_000)));
    url.searchParams.set('lastModEndDate', stamp(now));
    url.searchParams.set('resultsPerPage', '2000');
    // CVSS v3 CRITICAL is exactly ≥ 9.0: let NVD filter when the floor allows, keeping responses small.
    if (nvdFloor(source) >= 9) url.searchParams.set('cvssV3Severity', 'CRITICAL');
    return url.href;
  },
  *parse(document, context) {
    const root = parseJson(document, 'nvd');
    if (!isRecord(root) || root.format !== 'NVD_CVE')
      throw new ConnectorError('nvd: not an NVD_CVE document');
    const floor = nvdFloor(context.source);
    for (const entry of requireArray(root, 'vulnerabilities', 'nvd')) {
      const cve = isRecord(entry) && isRecord(entry.cve) ? entry.cve : null;
      const mapped = cve ? mapCve(cve, floor, context) : null;
      if (mapped) yield mapped;
    }
  },
};

function mapCve(cve: Record<string, unknown>, floor: number, context: ParseContext): SourceItem | null {
  const id = typeof cve.id === 'string' ? cve.id : '';
  const published = isoDate(cve.published);
  const cvss = nvdCvss(cve.metrics);
  if (!/^CVE-\d{4}-\d+$/.test(id) || !published || !cvss || cvss.score < floor) return null;
  const inKev = typeof cve.cisaExploitAdd === 'string';
  const score = finalScore(nvdBase(cvss.score, inKev), context.source.tier);
  const descriptions = Array.isArray(cve.descriptions) ? cve.descriptions.filter(isRecord) : [];
  const english = descriptions.find((d) => d.lang === 'en') ?? descriptions[0];
  const description = typeof english?.value === 'string' ? plainText(english.value) : '';
  const kevName = typeof cve.cisaVulnerabilityName === 'string' ? cve.cisaVulnerabilityName : null;
  // A description can run to paragraphs: the headline keeps its first 160 characters.
  const heading = title(`${id} (CVSS ${cvss.score}): ${clip(kevName ?? description, 160)}`);
  return item({
    threat_layer: 'cyber',
    significance_score: score,
    signal_valence: firstReportValence(score),
    title: heading,
    content_display: content(
      heading,
      description,
      `CVSS ${cvss.version} base score ${cvss.score}; NVD status ${typeof cve.vulnStatus === 'string' ? cve.vulnStatus : 'unknown'}.${
        inKev ? ` In CISA KEV since ${cve.cisaExploitAdd as string}.` : ''
      }`,
    ),
    country_codes: [],
    language: 'en',
    published_at: published,
    source_url: `https://nvd.nist.gov/vuln/detail/${id}`,
    external_ids: [`nvd:${id}`],
    upstream_updated_at: isoDate(cve.lastModified) ?? undefined,
    ...(cve.vulnStatus === 'Rejected' ? { retracted: true } : {}),
  });
}
