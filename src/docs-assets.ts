/**
 * The docs page's script as a file (Node only; never bundled into a Worker). The Node server
 * reads it at start; the Worker build copies it into `dist/assets` (wrangler.toml `[assets]`),
 * from where Cloudflare serves it as a static asset, with `_headers` giving it a long cache.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DOCS_SCRIPT_CACHE, DOCS_SCRIPT_PATH, SCALAR_STANDALONE } from './routes/docs';

/** Where wrangler.toml's `[assets] directory` points. */
export const ASSETS_DIR = 'dist/assets';

/** The package's own entry is dist/index.js; the bundle sits beside it (not in its exports). */
const standalonePath = () =>
  join(dirname(createRequire(import.meta.url).resolve('@scalar/api-reference')), SCALAR_STANDALONE);

/** The standalone bundle's bytes, read from node_modules. */
export function readDocsScript(): Buffer {
  return readFileSync(standalonePath());
}

/** Copies the bundle to `<dir>/api/v1/docs/scalar.js` and writes its cache header rule. */
export function buildDocsAssets(dir = ASSETS_DIR): void {
  const target = join(dir, DOCS_SCRIPT_PATH);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(standalonePath(), target);
  writeFileSync(join(dir, '_headers'), `${DOCS_SCRIPT_PATH}\n  Cache-Control: ${DOCS_SCRIPT_CACHE}\n`);
}
