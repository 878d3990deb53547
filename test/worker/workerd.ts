/**
 * Runs a Worker of this project in workerd: the bundle `wrangler deploy --dry-run` produces,
 * served by Miniflare (wrangler's own runtime) on a loopback port, with bindings as secrets.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { ASSETS_DIR, buildDocsAssets } from '../../src/docs-assets';
import { contractFetch } from '../support/contract';
import { postgresDatabase } from '../../src/db/node';
import { ADMIN_TOKEN, admin, json } from '../support/harness';
import { startNeonBridge, type NeonBridge } from '../support/neon-bridge';
import { createScratchDatabase, testDatabaseUrl } from '../support/services';

export interface WorkerdInstance {
  url: string;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Fires the Worker's `scheduled` handler once (the cron of the webhook Worker). */
  scheduled(cron?: string): Promise<unknown>;
  close(): Promise<void>;
}

const ROOT = new URL('../../', import.meta.url).pathname;

/** Builds the Worker of wrangler env `env` ('' = the API Worker) into a fresh directory. */
export function buildWorker(env = ''): { dir: string; main: string } {
  const dir = mkdtempSync(join(tmpdir(), 'workerd-'));
  buildDocsAssets(join(ROOT, ASSETS_DIR)); // wrangler.toml's [assets] directory must exist
  execFileSync('npx', ['wrangler', 'deploy', '--dry-run', `--env=${env}`, '--outdir', dir], {
    cwd: ROOT,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
    stdio: 'pipe',
  });
  // The bundle is named after the env's `main` (index.js for the API, cron.js for the cron Worker).
  const bundles = readdirSync(dir).filter((name) => name.endsWith('.js'));
  if (bundles.length !== 1) throw new Error(`expected one bundle in ${dir}, found: ${bundles.join(', ')}`);
  return { dir, main: join(dir, bundles[0]!) };
}

/** compatibility_date and flags as wrangler.toml sets them, so workerd behaves as deployed. */
function compatibility() {
  const toml = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8');
  const date = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  const flags = /^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(toml)?.[1] ?? '';
  return {
    compatibilityDate: date ?? '2026-04-20',
    compatibilityFlags: [...flags.matchAll(/"([^"]+)"/g)].map((m) => m[1]!),
  };
}

/** Starts the built Worker of `env` in workerd with `bindings` as its vars and secrets. */
export async function startWorkerd(
  bindings: Record<string, string>,
  options: { env?: string } = {},
): Promise<WorkerdInstance> {
  const build = buildWorker(options.env ?? '');
  const mf = new Miniflare({
    modules: true,
    scriptPath: build.main,
    modulesRoot: build.dir,
    ...compatibility(),
    bindings,
    // The API Worker's stream hub, as wrangler.toml binds it (the cron Worker's binding names
    // another script, which a lone Miniflare does not run: there the hub is absent).
    ...(options.env ? {} : { durableObjects: { STREAM_HUB: 'StreamHubObject' } }),
    host: '127.0.0.1',
    port: 0,
  });
  const url = (await mf.ready).toString().replace(/\/$/, '');
  return {
    url,
    // The API Worker's responses are checked against the OpenAPI document like the Node server's.
    fetch: options.env
      ? (path, init) => fetch(`${url}${path}`, init)
      : contractFetch(url, (path, init) => fetch(`${url}${path}`, init)),
    scheduled: async (cron = '*/5 * * * *') => (await mf.getWorker()).scheduled({ cron }),
    async close() {
      await mf.dispose();
      rmSync(build.dir, { recursive: true, force: true });
    },
  };
}

/** POSTs `body` as JSON to the Worker's admin API, with the admin token. */
export const adminPost = (worker: Pick<WorkerdInstance, 'fetch'>, path: string, body: unknown) =>
  worker.fetch(path, admin(json(body)));

/** Issues a key through the Worker's own admin API: that is part of what a Worker test proves. */
export async function issueKeyThrough(
  worker: Pick<WorkerdInstance, 'fetch'>,
  email: string,
  tier = 'pro',
): Promise<string> {
  const issued = await adminPost(worker, '/api/v1/admin/keys', { email, tier });
  if (issued.status !== 201) throw new Error(`issuing a key answered ${issued.status}`);
  return (await issued.json<{ key: string }>()).key;
}

/**
 * The API Worker in workerd on a fresh migrated scratch database of the CI Postgres, reached by
 * the Neon driver through the WebSocket bridge (`bridge`, to cut it); `close()` also drops the database.
 */
export async function startNeonWorker(): Promise<WorkerdInstance & { bridge: NeonBridge }> {
  const scratch = await createScratchDatabase(testDatabaseUrl()!);
  const migrated = await postgresDatabase(scratch.url, { migrate: true });
  await migrated.close();
  const bridge = await startNeonBridge();
  const worker = await startWorkerd({
    DATABASE_URL: scratch.url,
    ADMIN_TOKEN,
    NEON_WS_PROXY: `127.0.0.1:${bridge.port}/v1`,
    LOG_LEVEL: 'silent',
  });
  return {
    ...worker,
    bridge,
    close: async () => {
      await worker.close();
      await bridge.close();
      await scratch.drop();
    },
  };
}
