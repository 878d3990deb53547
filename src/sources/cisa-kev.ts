import { content, isRecord, isoDate, item, parseJson, requireArray, title, plainText } from './common';
import { finalScore, firstReportValence, kevBase } from './scoring';
import type { Connector } from './types';

/**
 * CISA Known Exploited Vulnerabilities catalogue. Identity is the CVE id. Every entry is exploited
 * in the wild; `knownRansomwareCampaignUse: "Known"` raises the score. No location.
 */
export const cisaKev: Connector = {
  name: 'cisa-kev',
  accept: 'application/json',
  // The catalogue changes a few times a week, in US business hours: daily is plenty.
  defaultIntervalMinutes: 1440,
  *parse(document, context) {
    const root = parseJson(document, 'cisa-kev');
    for (const entry of requireArray(root, 'vulnerabilities', 'cisa-kev')) {
      if (!isRecord(entry)) continue;
      const str = (key: string): string => (typeof entry[key] === 'string' ? entry[key].trim() : '');
      const cve = str('cveID');
      const published = isoDate(str('dateAdded'));
      if (!/^CVE-\d{4}-\d+$/.test(cve) || !published) continue;
      const ransomware = str('knownRansomwareCampaignUse') === 'Known';
      const score = finalScore(kevBase(ransomware), context.source.tier);
      const heading = title(
        `${cve}: ${str('vulnerabilityName') || `${str('vendorProject')} ${str('product')}`}`,
      );
      yield item({
        threat_layer: 'cyber',
        significance_score: score,
        signal_valence: firstReportValence(score),
        title: heading,
        content_display: content(
          heading,
          plainText(str('shortDescription')),
          `Vendor: ${str('vendorProject')}; product: ${str('product')}. Actively exploited; added to CISA KEV ${str('dateAdded')}, federal due date ${str('dueDate') || 'n/a'}.${ransomware ? ' Known use in ransomware campaigns.' : ''}`,
          str('requiredAction') ? `Required action: ${str('requiredAction')}` : null,
        ),
        country_codes: [],
        language: 'en',
        published_at: published,
        // One page per CVE (the vendor advisory in `notes` may be shared by several CVEs), and not
        // the NVD page, which the nvd connector uses for its own signal of the same CVE.
        source_url: `https://www.cisa.gov/known-exploited-vulnerabilities-catalog?search_api_fulltext=${cve}`,
        external_ids: [`cisa-kev:${cve}`],
      });
    }
  },
};
