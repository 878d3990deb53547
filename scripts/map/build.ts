/**
 * Builds src/embed/data/world-110m.json: every country of Natural Earth's 1:110m admin-0 layer
 * (public domain), as packaged by `world-atlas` (ISC), projected once with Equal Earth into the
 * map's fixed view box and written as SVG path data keyed by ISO 3166-1 alpha-2 code. The service
 * then only joins strings at request time: no topology decoding, no projection of polygons.
 *
 * Run: npx tsx scripts/map/build.ts && npx prettier --write src/embed/data/world-110m.json
 * (the output is then byte-identical to the committed file).
 */
import { writeFileSync } from 'node:fs';
import { iso1A2Code } from '@rapideditor/country-coder';
import { geoEqualEarth, geoPath } from 'd3-geo';
import type { Feature, Geometry } from 'geojson';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import world from 'world-atlas/countries-110m.json' with { type: 'json' };

const OUT = 'src/embed/data/world-110m.json';
const WIDTH = 960;
/** Below this latitude there is only ocean and Antarctica, which no desk maps: cropped. */
const SOUTH_CROP = -58;
/** Features of the 110m layer without an ISO numeric id, placed with the state that claims them. */
const UNCODED: Record<string, string> = { Kosovo: 'XK', 'N. Cyprus': 'CY', Somaliland: 'SO' };

const topology = world as unknown as Topology<{ countries: GeometryCollection<{ name: string }> }>;
const countries = feature(topology, topology.objects.countries).features as Feature<
  Geometry,
  { name: string }
>[];

const projection = geoEqualEarth().fitWidth(WIDTH, { type: 'Sphere' });
const height = Math.ceil(projection([0, SOUTH_CROP])![1]);

/**
 * Path data at whole pixels of the view box, relative after each move, with repeated points
 * and rings that collapse below a triangle dropped: a third of d3's absolute output.
 */
function compactPath(country: Feature<Geometry, { name: string }>): string {
  let out = '';
  let ring: [number, number][] = [];
  const flush = () => {
    if (ring.length >= 3) {
      const [[x0, y0]] = ring as [[number, number]];
      let d = `M${x0} ${y0}l`;
      for (let i = 1; i < ring.length; i++) {
        const dx = ring[i]![0] - ring[i - 1]![0];
        const dy = ring[i]![1] - ring[i - 1]![1];
        d += `${i > 1 && dx >= 0 ? ' ' : ''}${dx}${dy >= 0 ? ' ' : ''}${dy}`;
      }
      out += `${d}z`;
    }
    ring = [];
  };
  const point = (x: number, y: number) => {
    const p: [number, number] = [Math.round(x), Math.round(y)];
    const last = ring[ring.length - 1];
    if (!last || last[0] !== p[0] || last[1] !== p[1]) ring.push(p);
  };
  geoPath(projection, {
    beginPath: () => undefined,
    moveTo: (x, y) => {
      flush();
      point(x, y);
    },
    lineTo: point,
    closePath: flush,
    arc: () => undefined,
  })(country);
  flush();
  return out;
}

const byCode = new Map<string, { code: string; name: string; d: string }>();
for (const country of countries) {
  const code = UNCODED[country.properties.name] ?? (country.id ? iso1A2Code(String(country.id)) : null);
  if (!code) throw new Error(`no ISO code for ${country.properties.name}`);
  if (code === 'AQ') continue;
  const d = compactPath(country);
  const known = byCode.get(code);
  if (known) known.d += d;
  else byCode.set(code, { code, name: country.properties.name, d });
}

const data = {
  source:
    'Natural Earth 1:110m admin-0 countries (public domain), via world-atlas 2.0.2 (ISC); see LICENSES.md',
  projection: { name: 'equalEarth', scale: projection.scale(), translate: projection.translate() },
  width: WIDTH,
  height,
  countries: [...byCode.values()].sort((a, b) => a.code.localeCompare(b.code)),
};
writeFileSync(OUT, `${JSON.stringify(data)}\n`);
console.log(
  `${OUT}: ${data.countries.length} countries, ${WIDTH}×${height}, ${JSON.stringify(data).length} bytes`,
);
