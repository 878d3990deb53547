import { describe, expect, it } from 'vitest';
import {
  eonetBase,
  finalScore,
  firstReportValence,
  gdacsBase,
  kevBase,
  nvdBase,
  nwsBase,
  usgsBase,
  whoDonBase,
} from '../../src/sources/scoring';

describe('scoring table (hand-computed)', () => {
  it('usgs: max(magnitude − 1, PAGER floor) + tsunami 0.5 + sig≥1000 0.5', () => {
    expect(usgsBase({ mag: 6.3, alert: 'red', tsunami: 0, sig: 2029 })).toBe(9.5);
    expect(usgsBase({ mag: 6.3, alert: 'orange', tsunami: 0, sig: 1000 })).toBe(8);
    expect(usgsBase({ mag: 5.5, alert: 'yellow', tsunami: 0, sig: 651 })).toBe(6);
    expect(usgsBase({ mag: 6.9, alert: 'green', tsunami: 0, sig: 732 })).toBeCloseTo(5.9);
    expect(usgsBase({ mag: 4.32, alert: 'green', tsunami: 1, sig: 757 })).toBeCloseTo(3.82);
    expect(usgsBase({ mag: 9.5, alert: null, tsunami: 1, sig: 2500 })).toBe(9); // magnitude part capped at 8
    expect(usgsBase({ mag: 0.5, alert: null, tsunami: 0, sig: 0 })).toBe(0);
  });

  it('gdacs: level base + earthquake or cyclone bonus', () => {
    expect(gdacsBase({ alertLevel: 'Green', eventType: 'EQ', severityValue: 4.9, severityUnit: 'M' })).toBe(
      3,
    );
    expect(
      gdacsBase({ alertLevel: 'Orange', eventType: 'EQ', severityValue: 6.4, severityUnit: 'M' }),
    ).toBeCloseTo(6.7);
    expect(gdacsBase({ alertLevel: 'Red', eventType: 'EQ', severityValue: 8.2, severityUnit: 'M' })).toBe(10);
    expect(
      gdacsBase({ alertLevel: 'Red', eventType: 'TC', severityValue: 209, severityUnit: 'km/h' }),
    ).toBeCloseTo(9.4);
    expect(
      gdacsBase({ alertLevel: 'Orange', eventType: 'DR', severityValue: 669317, severityUnit: 'km2' }),
    ).toBe(6);
  });

  it('eonet: category + wind or fire-size bonus', () => {
    expect(eonetBase('severeStorms', 95, 'kts')).toBeCloseTo(7.0333);
    expect(eonetBase('severeStorms', 200, 'kts')).toBe(8);
    expect(eonetBase('wildfires', 2547, 'acres')).toBeCloseTo(3.406);
    expect(eonetBase('wildfires', 500, 'acres')).toBe(3);
    expect(eonetBase('seaLakeIce', 26.89, 'NM^2')).toBe(1);
    expect(eonetBase('unknownCategory', null, null)).toBe(3);
  });

  it('nws: severity + urgency + certainty', () => {
    expect(nwsBase('Moderate', 'Expected', 'Likely')).toBe(4.5);
    expect(nwsBase('Extreme', 'Immediate', 'Observed')).toBe(9.5);
    expect(nwsBase('Minor', 'Past', 'Unlikely')).toBe(0);
  });

  it('cyber: KEV 6 (+2 ransomware); NVD CVSS − 3 (+1.5 in KEV)', () => {
    expect(kevBase(false)).toBe(6);
    expect(kevBase(true)).toBe(8);
    expect(nvdBase(9.8, false)).toBeCloseTo(6.8);
    expect(nvdBase(10, true)).toBe(8.5);
  });

  it('health', () => {
    expect(whoDonBase(false)).toBe(6);
    expect(whoDonBase(true)).toBe(7.5);
  });

  it('tier adjustment, clamping and rounding', () => {
    expect(finalScore(9.5, 'core')).toBe(9.5);
    expect(finalScore(9.5, 'community')).toBe(9);
    expect(finalScore(9.5, 'discovered')).toBe(8.5);
    expect(finalScore(10.4, 'core')).toBe(10);
    expect(finalScore(0.5, 'discovered')).toBe(0);
    expect(finalScore(3.8166, 'core')).toBe(3.8);
  });

  it('first-report valence: crisis from 4, update below, resolution when ended', () => {
    expect(firstReportValence(4)).toBe('crisis');
    expect(firstReportValence(3.9)).toBe('update');
    expect(firstReportValence(9, true)).toBe('resolution');
  });
});
