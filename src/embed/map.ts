import { geoEqualEarth } from 'd3-geo';
import { escapeHtml } from '../feeds/text';
import { LAYERS, type Layer } from '../vocab';
import WORLD from './data/world-110m.json';

/**
 * The world map the service draws itself: countries from bundled Natural Earth geometry
 * (projected once at build time by scripts/map/build.ts, see data/LICENSES.md), shaded by the
 * number of events naming them, and one mark per event with coordinates, merged with its
 * neighbours when they would overlap. Pure: events in, SVG text out.
 */

/** One event as the map shows it: its strongest signal that matches the filters. */
export interface MapEvent {
  /** The signal shown for the event (its strongest matching one). */
  id: string;
  eventId: string;
  layer: string;
  score: number;
  title: string;
  lat: number | null;
  lng: number | null;
  countries: string[];
  corroboration: number;
  publishedAt: Date;
  /** The original item when it is an http(s) URL: what a click on the mark opens. */
  url: string | null;
}

export const MAP_THEMES = ['light', 'dark'] as const;
export type MapTheme = (typeof MAP_THEMES)[number];

/** Marks drawn at most: above this, neighbours merge into wider cells until they fit. */
const MAX_MARKS = 300;
/** The smallest merge cell, in view-box pixels (960 across): marks closer than this overlap. */
const MIN_CELL = 6;

/** Okabe–Ito: eight hues told apart with every common colour-vision deficiency. */
export const LAYER_COLOURS: Record<Layer, { light: string; dark: string }> = {
  military: { light: '#D55E00', dark: '#D55E00' },
  cyber: { light: '#0072B2', dark: '#56B4E9' },
  economic: { light: '#009E73', dark: '#009E73' },
  disaster: { light: '#E69F00', dark: '#E69F00' },
  political: { light: '#000000', dark: '#FFFFFF' },
  criminal: { light: '#CC79A7', dark: '#CC79A7' },
  health: { light: '#56B4E9', dark: '#0072B2' },
  supply_chain: { light: '#F0E442', dark: '#F0E442' },
};

/** Events per country at which each shade starts; a step of about ×3 reads as one class. */
const SHADE_STEPS = [1, 3, 10, 30, 100] as const;

/** Land with no events, then one shade per step (a single-hue ramp, light to strong). */
const PALETTE = {
  light: {
    sea: '#f4f7fa',
    border: '#ffffff',
    text: '#17202a',
    halo: '#ffffff',
    shades: ['#dfe4ea', '#c6d4e3', '#9fb6cf', '#7693b5', '#4f6f96', '#2c4a70'],
  },
  dark: {
    sea: '#11151b',
    border: '#11151b',
    text: '#e6ebf1',
    halo: '#11151b',
    shades: ['#262e38', '#2f4158', '#3d5878', '#507399', '#6c93bb', '#98bde0'],
  },
} as const;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');
const when = (d: Date) =>
  `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;

// The projection the geometry was drawn with, rebuilt from its parameters: points must land
// where the build put the countries. Built once per isolate; it holds no request data.
const projection = geoEqualEarth()
  .scale(WORLD.projection.scale)
  .translate(WORLD.projection.translate as [number, number]);

/** An event's point in the view box, whole pixels, clamped inside the drawn area. */
export function project(lat: number, lng: number): [number, number] {
  const [x, y] = projection([lng, lat]) ?? [0, 0];
  return [
    Math.min(WORLD.width, Math.max(0, Math.round(x))),
    Math.min(WORLD.height, Math.max(0, Math.round(y))),
  ];
}

/** The shade class (0 = land without events) of a country with `count` events. */
function shadeOf(count: number): number {
  let shade = 0;
  SHADE_STEPS.forEach((step, i) => {
    if (count >= step) shade = i + 1;
  });
  return shade;
}

/** Events per country, each event once (however many outlets told it or countries it names). */
function eventsByCountry(events: readonly MapEvent[]): Map<string, number> {
  const counts = new Map<string, number>();
  const seen = new Set<string>();
  for (const event of events) {
    if (seen.has(event.eventId)) continue;
    seen.add(event.eventId);
    const codes = event.countries.length > 1 ? new Set(event.countries) : event.countries;
    for (const code of codes) counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  return counts;
}

/** One drawn mark: an event, or several near ones merged; `lead` is the strongest. */
export interface MapMark {
  x: number;
  y: number;
  lead: MapEvent;
  count: number;
}

/**
 * Events with coordinates as marks: events in the same grid cell merge into one mark at the
 * strongest's place; the cell widens (×2) until at most `maxMarks` remain, so a map of any
 * number of events stays a bounded size. `events` must come strongest first.
 */
export function markEvents(events: readonly MapEvent[], maxMarks = MAX_MARKS): MapMark[] {
  const placed = events.flatMap((event) =>
    event.lat === null || event.lng === null ? [] : [{ event, at: project(event.lat, event.lng) }],
  );
  for (let cell = MIN_CELL; ; cell *= 2) {
    const cells = new Map<number, MapMark>();
    for (const { event, at } of placed) {
      // The view box is under 4,096 px a side: one number keys a cell.
      const key = Math.floor(at[0] / cell) * 4096 + Math.floor(at[1] / cell);
      const mark = cells.get(key);
      if (mark) mark.count += 1;
      else cells.set(key, { x: at[0], y: at[1], lead: event, count: 1 });
    }
    if (cells.size <= maxMarks || cell > WORLD.width) return [...cells.values()];
  }
}

const layerColour = (layer: string, theme: MapTheme) =>
  LAYER_COLOURS[layer as Layer]?.[theme] ?? (theme === 'dark' ? '#bbbbbb' : '#666666');

/** What a mark's tooltip and table row say about its strongest event. */
function describeEvent(event: MapEvent): string {
  const sources = event.corroboration === 1 ? '1 source' : `${event.corroboration} sources`;
  return `${event.title} · ${event.layer.replace('_', ' ')} · score ${event.score.toFixed(1)} · ${sources} · ${when(event.publishedAt)}`;
}

/** A mark's `<title>`: the event, or how many merged and the strongest of them. */
const markTitle = (mark: MapMark) =>
  mark.count === 1
    ? describeEvent(mark.lead)
    : `${mark.count} events here; strongest: ${describeEvent(mark.lead)}`;

const radius = (mark: MapMark, scale: number) =>
  Math.round(
    Math.min(14, 2 + mark.lead.score * 0.45 + (mark.count > 1 ? Math.sqrt(mark.count) : 0)) * scale * 2,
  ) / 2;

export interface MapOptions {
  theme: MapTheme;
  /** Rendered width in CSS pixels; the height follows the view box. */
  width: number;
  /** What the map shows, for its `<title>` (`Events of the last 24 h · cyber · UA`). */
  scope: string;
  /** More events matched than the read's cap: the map shows the strongest. */
  truncated?: boolean;
  /** Marks drawn at most (the widget draws fewer than the image). */
  maxMarks?: number;
  /** Draw the legend in the image (default); the widget writes it as HTML under the map instead. */
  legend?: boolean;
  /** Marks' size relative to the image's (a narrow widget draws them larger, to be pointed at). */
  markScale?: number;
  /** The `id` of the root element, unique in a page that holds it inline. */
  id?: string;
}

/** The legend's label of each shade (`1–2`, `3–9`, …, `100+`). */
export const SHADE_LABELS = SHADE_STEPS.map((step, i) => {
  const next = SHADE_STEPS[i + 1];
  return next ? (next - 1 === step ? `${step}` : `${step}–${next - 1}`) : `${step}+`;
});

/** The layers that have marks, in the vocabulary's order: what a legend lists. */
export const layersOf = (marks: readonly MapMark[]) =>
  LAYERS.filter((layer) => marks.some((mark) => mark.lead.layer === layer));

function legend(theme: MapTheme, marks: readonly MapMark[]): string {
  const colours = PALETTE[theme];
  const y = WORLD.height - 46;
  const swatches = SHADE_LABELS.map((label, i) => {
    return `<rect x="${8 + i * 52}" y="${y + 6}" width="14" height="10" fill="${colours.shades[i + 1]}" class="s${i + 1}"/><text x="${26 + i * 52}" y="${y + 15}">${label}</text>`;
  }).join('');
  const layers = layersOf(marks)
    .map((layer, i) => {
      const x = 8 + (i % 4) * 68;
      const row = y + 30 + Math.floor(i / 4) * 14;
      return `<circle cx="${x + 5}" cy="${row - 4}" r="4" fill="${layerColour(layer, theme)}" class="mk-${layer}"/><text x="${x + 13}" y="${row}">${layer.replace('_', ' ')}</text>`;
    })
    .join('');
  return (
    `<g class="legend" font-family="system-ui,sans-serif" font-size="10" fill="${colours.text}">` +
    `<text x="8" y="${y}">Events per country</text>${swatches}${layers}</g>`
  );
}

/**
 * The map as a standalone SVG document (also valid inline in HTML): `<title>` and `<desc>` say
 * what is shown, each mark has its own `<title>`, and every text is escaped.
 */
export function renderMap(events: readonly MapEvent[], options: MapOptions): string {
  const { theme } = options;
  const colours = PALETTE[theme];
  const id = options.id ?? 'map';
  const counts = eventsByCountry(events);
  const marks = markEvents(events, options.maxMarks);
  const located = marks.reduce((sum, mark) => sum + mark.count, 0);

  const blank: string[] = [];
  const shaded: string[] = [];
  for (const country of WORLD.countries) {
    const count = counts.get(country.code) ?? 0;
    if (count === 0) {
      blank.push(country.d);
      continue;
    }
    const shade = shadeOf(count);
    shaded.push(
      `<path d="${country.d}" fill="${colours.shades[shade]}" class="s${shade}" data-cc="${country.code}" data-events="${count}"><title>${escapeHtml(country.name)}: ${count} event${count === 1 ? '' : 's'}</title></path>`,
    );
  }

  // Weakest first, so where marks overlap the strongest is drawn on top.
  const markSvg = [...marks]
    .reverse()
    .map((mark) => {
      // A linked mark is focused through its link; an unlinked one takes focus itself.
      const focus = mark.lead.url ? '' : ' tabindex="0"';
      const circle = `<circle cx="${mark.x}" cy="${mark.y}" r="${radius(mark, options.markScale ?? 1)}" fill="${layerColour(mark.lead.layer, theme)}" class="mk mk-${escapeHtml(mark.lead.layer)}" data-n="${mark.count}"${focus}><title>${escapeHtml(markTitle(mark))}</title></circle>`;
      return mark.lead.url
        ? `<a href="${escapeHtml(mark.lead.url)}" target="_blank" rel="noopener noreferrer">${circle}</a>`
        : circle;
    })
    .join('');

  const height = Math.round((options.width * WORLD.height) / WORLD.width);
  const total = new Set(events.map((e) => e.eventId)).size;
  const omitted = options.truncated ? ` (the ${total} strongest; more matched)` : '';
  const desc =
    `${total} event${total === 1 ? '' : 's'}${omitted}, ${located} with coordinates drawn as ${marks.length} mark${marks.length === 1 ? '' : 's'} ` +
    `(nearby events merged; size by score, colour by layer); ${counts.size} countr${counts.size === 1 ? 'y' : 'ies'} shaded by their number of events, each event counted once however many outlets told it.`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WORLD.width} ${WORLD.height}" width="${options.width}" height="${height}" ` +
    `role="img" aria-labelledby="${id}-t ${id}-d" id="${id}" class="map">` +
    `<title id="${id}-t">${escapeHtml(options.scope)}</title><desc id="${id}-d">${escapeHtml(desc)}</desc>` +
    `<rect width="${WORLD.width}" height="${WORLD.height}" fill="${colours.sea}" class="sea"/>` +
    `<g stroke="${colours.border}" stroke-width="0.5" stroke-linejoin="round" class="countries">` +
    `<path d="${blank.join('')}" fill="${colours.shades[0]}" class="s0"/>${shaded.join('')}</g>` +
    `<g stroke="${colours.halo}" stroke-width="0.8" fill-opacity="0.85" class="marks">${markSvg}</g>` +
    `${options.legend === false ? '' : legend(theme, marks)}</svg>`
  );
}
