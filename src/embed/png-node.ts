import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { initWasm, Resvg } from '@resvg/resvg-wasm';

/**
 * The map as PNG on Node: resvg's WebAssembly build, read from node_modules once per process
 * (never downloaded), with DejaVu Sans for the legend (resvg-wasm has no system fonts). Workers
 * get no rasteriser: the wasm alone is ~950 KB gzipped, more than the API Worker can spare.
 */
const require = createRequire(import.meta.url);

// Both are immutable once loaded, so one copy serves every request of the process.
let loaded: Promise<Uint8Array> | undefined;
const load = () =>
  (loaded ??= (async () => {
    await initWasm(await readFile(require.resolve('@resvg/resvg-wasm/index_bg.wasm')));
    return new Uint8Array(await readFile(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')));
  })());

/** Rasterises an SVG document to PNG at its own `width` attribute. */
export async function rasterizePng(svg: string): Promise<Uint8Array<ArrayBuffer>> {
  const font = await load();
  const resvg = new Resvg(svg, {
    font: { fontBuffers: [font], defaultFontFamily: 'DejaVu Sans', sansSerifFamily: 'DejaVu Sans' },
  });
  try {
    const image = resvg.render();
    try {
      return new Uint8Array(image.asPng());
    } finally {
      image.free();
    }
  } finally {
    resvg.free();
  }
}
