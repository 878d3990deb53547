#!/usr/bin/env node
// Bundle budget (DESIGN §7): the API Worker must stay under 1 MiB gzipped, the limit of
// Cloudflare's free plan. Reads the bundle `wrangler deploy --dry-run --outdir <dir>` wrote.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const dir = process.argv[2] ?? 'dist/api';
const LIMIT = 1024 * 1024;

// Wrangler uploads every module in the out dir, so all of them count (source maps do not).
const files = readdirSync(dir, { recursive: true })
  .map(String)
  .filter((f) => /\.(m?js|wasm|cjs)$/.test(f));
if (files.length === 0) {
  console.error(`bundle budget: no Worker modules in ${dir}`);
  process.exit(1);
}
let raw = 0;
let gzipped = 0;
for (const file of files) {
  const bytes = readFileSync(join(dir, file));
  raw += bytes.length;
  gzipped += gzipSync(bytes, { level: 9 }).length;
}
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`API Worker bundle: ${kib(raw)} raw, ${kib(gzipped)} gzipped (budget ${kib(LIMIT)})`);
if (gzipped > LIMIT) {
  console.error('bundle budget exceeded');
  process.exit(1);
}
