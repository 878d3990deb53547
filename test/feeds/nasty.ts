/**
 * Signals whose text tries to break feeds, CSV and the widget: XML specials, CDATA ends,
 * quotes, emoji, control characters, markup and formula prefixes.
 */
export const NASTY = {
  markup: {
    threat_layer: 'cyber',
    significance_score: 9.9,
    signal_valence: 'crisis',
    title: 'AT&T <b>outage</b> ]]> "quoted" \'single\' 🚨 bell\u0007 esc\u001B ]]> end',
    content_display:
      'Payload <script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> & ]]> twice ]]> 🌍 \u0001ctrl\u0008 done',
    country_codes: ['US'],
    city: 'Dallas',
    lat: 32.78,
    lng: -96.8,
    language: 'en',
    published_at: '2026-11-21T20:00:00Z',
    source_url: 'https://nasty.example.com/markup?a=1&b=2',
    source: { name: 'Nasty <Wire> & Co', tier: 'discovered' },
  },
  formula: {
    threat_layer: 'economic',
    significance_score: 2.0,
    signal_valence: 'update',
    title: '+1 analysts expect a rally',
    content_display: '@SUM(A1:A9) markets rose; -5% was the low',
    country_codes: ['DE'],
    language: 'en',
    published_at: '2026-11-14T08:00:00Z',
    source_url: 'https://nasty.example.com/formula',
    source: { name: '-Minus Markets', tier: 'community' },
  },
} as const;

/** What XML 1.0 can carry of `text`: control characters other than tab, LF and CR removed. */
export const xmlVisible = (text: string) => text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '');

/** Decodes the five XML/HTML entities the service writes (for `type="html"` text). */
export const decodeHtml = (html: string) =>
  html
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');
