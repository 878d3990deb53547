import { escapeHtml, httpUrl, xmlSafe } from '../feeds/text';
import type { SignalRow } from '../signals/query';
import { layersOf, markEvents, renderMap, SHADE_LABELS, type MapEvent } from './map';
import { LIVE_JS } from './live';
import { WIDGET_JS } from './script';
import { WIDGET_CSS } from './style';

export const WIDGET_THEMES = ['light', 'dark', 'auto'] as const;
export type WidgetTheme = (typeof WIDGET_THEMES)[number];

/** `map` (map and its table), `list` (signals), `auto` (the map above the list in a tall frame). */
export const WIDGET_VIEWS = ['auto', 'map', 'list'] as const;
type WidgetView = (typeof WIDGET_VIEWS)[number];

/** Events the widget's map reads at most, strongest first: bounds the page whatever the window. */
export const WIDGET_MAP_EVENTS = 2000;
/** Marks the widget draws at most (fewer than the image: each also has a table row). */
const WIDGET_MAP_MARKS = 120;

/** Seconds between in-place refreshes of the list. */
const WIDGET_REFRESH_SECONDS = 120;
const SUMMARY_CHARS = 180;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** One list entry as the widget's refresh endpoint sends it. */
export interface WidgetItem {
  id: string;
  threat_layer: string;
  significance_score: number;
  signal_valence: string;
  title: string;
  summary: string;
  country_codes: string[];
  published_at: string;
  /** The original item, only when it is an http(s) URL; otherwise the title is not a link. */
  source_url: string | null;
  source_name: string;
}

const shorten = (text: string) =>
  text.length <= SUMMARY_CHARS ? text : `${text.slice(0, SUMMARY_CHARS - 1).trimEnd()}…`;

/** A signal row as a widget entry; control characters are dropped, since they only render as boxes. */
export function widgetItem(row: SignalRow): WidgetItem {
  return {
    id: row.id,
    threat_layer: row.threatLayer,
    significance_score: row.significanceScore,
    signal_valence: row.signalValence,
    title: xmlSafe(row.title),
    summary: shorten(xmlSafe(row.contentDisplay)),
    country_codes: row.countryCodes,
    published_at: row.publishedAt.toISOString(),
    source_url: httpUrl(row.sourceUrl),
    source_name: xmlSafe(row.sourceName),
  };
}

const pad = (n: number) => String(n).padStart(2, '0');
/** `21 Nov 09:30 UTC`, the same as the script writes. */
const when = (d: Date) =>
  `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;

function itemHtml(item: WidgetItem): string {
  const title = item.source_url
    ? `<a class="t" href="${escapeHtml(item.source_url)}" target="_blank" rel="noopener noreferrer">${escapeHtml(item.title)}</a>`
    : `<span class="t">${escapeHtml(item.title)}</span>`;
  const countries = item.country_codes.length
    ? `<span class="c">${escapeHtml(item.country_codes.join(' '))}</span>`
    : '';
  return (
    `<li class="s"><div class="m"><span class="l l-${escapeHtml(item.threat_layer)}">${escapeHtml(item.threat_layer.replace('_', ' '))}</span>` +
    `<span class="v v-${escapeHtml(item.signal_valence)}">${escapeHtml(item.signal_valence)}</span>` +
    `<span class="sc">${item.significance_score.toFixed(1)}</span>${countries}</div>${title}` +
    `<p class="d">${escapeHtml(item.summary)}</p>` +
    `<div class="f"><time datetime="${item.published_at}">${when(new Date(item.published_at))}</time> · ${escapeHtml(item.source_name)}</div></li>`
  );
}

export interface WidgetPage {
  items: WidgetItem[];
  /** The window's events for the map; absent in the list view. */
  map?: { events: MapEvent[]; truncated: boolean } | undefined;
  view: WidgetView;
  theme: WidgetTheme;
  hours: number;
  layers?: string[];
  country?: string;
  /** Same-origin path of the refresh endpoint for this selection. */
  dataPath: string;
  /** The public origin (PUBLIC_BASE_URL or a validated Host), for the footer's link. */
  baseUrl: string;
}

const tableCaption = (events: number) => `${events} event${events === 1 ? '' : 's'}, by place`;

/**
 * The map section: the SVG inline (so marks can be hovered, focused and clicked under the
 * widget's CSP), a tooltip the script fills, and the same data as a table for screen readers
 * and copying. The SVG is drawn in light colours; the stylesheet repaints it for dark themes.
 */
function mapHtml(map: NonNullable<WidgetPage['map']>, scope: string): string {
  const svg = renderMap(map.events, {
    theme: 'light',
    width: 960,
    scope: `Map of events · ${scope}`,
    truncated: map.truncated,
    maxMarks: WIDGET_MAP_MARKS,
    markScale: 2,
    legend: false,
    id: 'wmap',
  });
  const marks = markEvents(map.events, WIDGET_MAP_MARKS);
  // The legend as text under the map: the image's own would be a few pixels high in a frame.
  const legend =
    `<p class="lg">Events per country ${SHADE_LABELS.map((label, i) => `<span><i class="s${i + 1}"></i>${label}</span>`).join(' ')}` +
    `${layersOf(marks)
      .map((layer) => ` <span><i class="d mk-${layer}"></i>${layer.replace('_', ' ')}</span>`)
      .join('')}</p>`;
  const rows = marks
    .map((mark) => {
      const { lead } = mark;
      const title = lead.url
        ? `<a href="${escapeHtml(lead.url)}" target="_blank" rel="noopener noreferrer">${escapeHtml(lead.title)}</a>`
        : escapeHtml(lead.title);
      return (
        `<tr><td>${title}</td><td>${escapeHtml(lead.layer.replace('_', ' '))}</td><td>${lead.score.toFixed(1)}</td>` +
        `<td>${lead.corroboration}</td><td>${when(lead.publishedAt)}</td><td>${mark.count}</td></tr>`
      );
    })
    .join('');
  const table = rows
    ? `<details><summary>The map as a table</summary><table><caption>${escapeHtml(tableCaption(map.events.length))}</caption>` +
      `<thead><tr><th scope="col">Event (strongest here)</th><th scope="col">Layer</th><th scope="col">Score</th><th scope="col">Sources</th><th scope="col">Time</th><th scope="col">Events here</th></tr></thead>` +
      `<tbody>${rows}</tbody></table></details>`
    : '';
  return `<section id="mapbox" aria-label="Map of events">${svg}<div id="tip" role="status" hidden></div>${legend}${table}</section>`;
}

/** The widget's whole HTML document; every dynamic text is escaped. */
export function renderWidget(page: WidgetPage): string {
  const scope = [
    `Last ${page.hours} h`,
    ...(page.layers?.length ? [page.layers.map((l) => l.replace('_', ' ')).join(', ')] : []),
    ...(page.country ? [page.country] : []),
  ].join(' · ');
  const empty = `No signals in the last ${page.hours} hours.`;
  const items = page.items.length
    ? page.items.map(itemHtml).join('')
    : `<li class="empty">${escapeHtml(empty)}</li>`;
  const list = page.view === 'map' ? '' : `<ol id="list">${items}</ol>`;
  const map = page.map ? mapHtml(page.map, scope) : '';
  const heading = page.view === 'map' ? 'Where events are' : 'Latest signals';
  return (
    `<!doctype html><html lang="en" class="t-${page.theme}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer">` +
    `<title>${heading}</title><style>${WIDGET_CSS}</style></head><body>` +
    `<main id="w" class="v-${page.view}" data-src="${escapeHtml(page.dataPath)}" data-refresh="${WIDGET_REFRESH_SECONDS}" data-empty="${escapeHtml(empty)}">` +
    `<header><h1>${heading}</h1><span class="sub">${escapeHtml(scope)}</span></header>` +
    `${map}${list}` +
    `<footer>Signal Intelligence API · <a href="${escapeHtml(page.baseUrl)}/api/v1/docs" target="_blank" rel="noopener noreferrer">about</a></footer>` +
    `</main><script>${WIDGET_JS}</script><script>${LIVE_JS}</script></body></html>`
  );
}

const sha256Source = async (text: string) => {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return `'sha256-${btoa(String.fromCharCode(...digest))}'`;
};

// The script and stylesheet are constants, so their hashes are computed once per isolate.
let policy: Promise<string> | undefined;

/**
 * The widget's Content-Security-Policy: running only its own inline script and stylesheet (by
 * hash, so cached pages stay valid), talking only to its own origin. It has no
 * `frame-ancestors`: `*` would exclude `file:` and `about:blank` parents, and any page may frame it.
 */
export function widgetPolicy(): Promise<string> {
  policy ??= Promise.all([sha256Source(WIDGET_JS), sha256Source(LIVE_JS), sha256Source(WIDGET_CSS)]).then(
    ([script, live, style]) =>
      `default-src 'none'; script-src ${script} ${live}; style-src ${style}; connect-src 'self'; ` +
      `base-uri 'none'; form-action 'none'`,
  );
  return policy;
}

let errorPolicy: Promise<string> | undefined;

/** The policy of the widget's error page: only the widget's stylesheet; nothing runs or loads; any page may frame it. */
export function widgetErrorPolicy(): Promise<string> {
  errorPolicy ??= sha256Source(WIDGET_CSS).then(
    (style) => `default-src 'none'; style-src ${style}; base-uri 'none'; form-action 'none'`,
  );
  return errorPolicy;
}

/** What a problem+json body says, as far as the error page shows it. */
export interface WidgetProblem {
  title?: unknown;
  detail?: unknown;
  errors?: unknown;
}

const text = (value: unknown) => (typeof value === 'string' ? escapeHtml(xmlSafe(value)) : '');

/**
 * A small readable page for an error inside the frame (a bad parameter, a rate limit), in place
 * of raw problem+json, in the widget's own style and theme; every text is escaped. The field
 * messages carry the allowed values and ranges (`must be between 1 and 720`).
 */
export function renderWidgetError(
  problem: WidgetProblem,
  status: number,
  theme: WidgetTheme = 'auto',
): string {
  const fields = Array.isArray(problem.errors)
    ? (problem.errors as { path?: unknown; message?: unknown }[])
        .map((e) => `<li><code>${text(e.path)}</code> ${text(e.message)}</li>`)
        .join('')
    : '';
  return (
    `<!doctype html><html lang="en" class="t-${theme}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer">` +
    `<title>Latest signals: error</title><style>${WIDGET_CSS}</style></head><body>` +
    `<main id="error" role="alert"><header><h1>${text(problem.title) || `Error ${status}`}</h1></header>` +
    `<p>${text(problem.detail)}</p>${fields ? `<ul>${fields}</ul>` : ''}` +
    `<p class="f">Check the widget's address (see the API documentation, <code>/embed</code>).</p></main></body></html>`
  );
}
