/**
 * `npm run deploy`: applies the migrations to the Neon DATABASE_URL, then deploys the API
 * Worker and the cron Worker. `npm run deploy -- --dry-run` only builds both bundles and
 * prints their sizes against the budget (no credentials needed; CI runs it).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { postgresDatabase } from './db/node';
import { buildDocsAssets } from './docs-assets';

/**
 * The bundle budget: each Worker under 2.5 MiB gzipped (Cloudflare's free-plan limit is 3 MiB).
 * It was 1 MiB before the learned reader's weights (src/reading/data/model.json, ~0.7 MiB gzipped).
 */
const BUDGET = 2.5 * 1024 * 1024;

interface Worker {
  name: string;
  /** The wrangler environment (`""` is the top-level one). */
  env: string;
  outdir: string;
}

const WORKERS: Worker[] = [
  { name: 'API Worker', env: '', outdir: 'dist/api' },
  { name: 'cron Worker (sources and webhooks)', env: 'cron', outdir: 'dist/cron' },
];

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

function wrangler(args: string[]): void {
  const result = spawnSync('npx', ['wrangler', ...args], {
    stdio: 'inherit',
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  });
  if (result.status !== 0) throw new Error(`wrangler ${args.join(' ')} failed (exit ${result.status})`);
}

/** Raw and gzipped size of every module wrangler would upload from `dir` (not source maps). */
export function bundleSize(dir: string): { raw: number; gzipped: number } {
  const files = readdirSync(dir, { recursive: true })
    .map(String)
    .filter((file) => /\.(m?js|cjs|wasm)$/.test(file));
  if (files.length === 0) throw new Error(`no Worker modules in ${dir}`);
  let raw = 0;
  let gzipped = 0;
  for (const file of files) {
    const bytes = readFileSync(join(dir, file));
    raw += bytes.length;
    gzipped += gzipSync(bytes, { level: 9 }).length;
  }
  return { raw, gzipped };
}

function build(worker: Worker): boolean {
  buildDocsAssets(); // the docs page's script, a static asset of the API Worker
  wrangler(['deploy', '--dry-run', `--env=${worker.env}`, '--outdir', worker.outdir]);
  const { raw, gzipped } = bundleSize(worker.outdir);
  const within = gzipped <= BUDGET;
  console.log(
    `${worker.name}: ${kib(raw)} raw, ${kib(gzipped)} gzipped (budget ${kib(BUDGET)})${within ? '' : ' OVER BUDGET'}`,
  );
  return within;
}

async function migrate(url: string): Promise<void> {
  const database = await postgresDatabase(url, { migrate: true, max: 1 });
  await database.close();
  console.log('migrations applied');
}

async function main(argv: string[]): Promise<void> {
  const dryRun = argv.includes('--dry-run');
  const sizes = WORKERS.map(build);
  if (sizes.includes(false)) throw new Error('bundle budget exceeded');
  if (dryRun) return;
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL (the Neon connection string) must be set to deploy');
  await migrate(url);
  for (const worker of WORKERS) wrangler(['deploy', `--env=${worker.env}`]);
}

main(process.argv.slice(2)).catch((error: Error) => {
  console.error(`deploy: ${error.message}`);
  process.exit(1);
});
