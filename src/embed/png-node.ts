import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { ApiError } from '../http/problem';

/**
 * The map as PNG on Node: resvg's WebAssembly build, read from node_modules (never downloaded),
 * with DejaVu Sans for the legend (resvg-wasm has no system fonts). Rasterising a map takes
 * 0.1–1 s of CPU, so it runs on a worker thread: the event loop keeps serving other requests.
 * Workers get no rasteriser: the wasm alone is ~950 KB gzipped, more than the API Worker can spare.
 */
const require = createRequire(import.meta.url);

/** Renders waiting at most; past it a request is told to come back rather than queue for seconds. */
const MAX_PENDING = 8;

// Plain JavaScript evaluated by the thread, so it runs the same under tsx and compiled builds.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { initWasm, Resvg } = require(workerData.resvg);
const ready = initWasm(readFileSync(workerData.wasm));
const font = new Uint8Array(readFileSync(workerData.font));
parentPort.on('message', async ({ id, svg }) => {
  try {
    await ready;
    const resvg = new Resvg(svg, { font: { fontBuffers: [font], defaultFontFamily: 'DejaVu Sans', sansSerifFamily: 'DejaVu Sans' } });
    const image = resvg.render();
    const png = image.asPng();
    image.free();
    resvg.free();
    parentPort.postMessage({ id, png }, [png.buffer]);
  } catch (error) {
    parentPort.postMessage({ id, error: String(error) });
  }
});`;

type Pending = { resolve: (png: Uint8Array<ArrayBuffer>) => void; reject: (error: Error) => void };

// One thread per process, started on first use: the wasm and the font load once.
let thread: Worker | undefined;
const pending = new Map<number, Pending>();
let nextId = 0;

function start(): Worker {
  const worker = new Worker(THREAD, {
    eval: true,
    workerData: {
      resvg: require.resolve('@resvg/resvg-wasm'),
      wasm: require.resolve('@resvg/resvg-wasm/index_bg.wasm'),
      font: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'),
    },
  });
  // An idle rasteriser must not keep the process alive.
  worker.unref();
  worker.on('message', (message: { id: number; png?: Uint8Array<ArrayBuffer>; error?: string }) => {
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (message.png) waiting?.resolve(new Uint8Array(message.png.buffer));
    else waiting?.reject(new Error(message.error ?? 'rasterising failed'));
  });
  worker.on('error', (error) => {
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
    thread = undefined;
  });
  return worker;
}

/** Rasterises an SVG document to PNG at its own `width` attribute, off the event loop. */
export function rasterizePng(svg: string): Promise<Uint8Array<ArrayBuffer>> {
  if (pending.size >= MAX_PENDING) {
    return Promise.reject(
      new ApiError(
        503,
        'service_unavailable',
        'The PNG rasteriser is busy; retry shortly or ask for the SVG.',
        undefined,
        {
          'Retry-After': '5',
        },
      ),
    );
  }
  thread ??= start();
  const id = nextId++;
  const done = new Promise<Uint8Array<ArrayBuffer>>((resolve, reject) =>
    pending.set(id, { resolve, reject }),
  );
  thread.postMessage({ id, svg });
  return done;
}
