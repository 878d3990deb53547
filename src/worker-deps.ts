import { neonConfig } from '@neondatabase/serverless';
import type { Config } from './config';
import { loadConfig } from './config';
import { neonDatabase, type DatabaseHandle } from './db/client';
import { consoleLogger, type Deps } from './deps';
import { workerOutboundFetch } from './net/outbound';
import { memoryStore } from './store/memory';
import type { Store } from './store/types';
import { upstashStore } from './store/upstash';
import { workerClientIp } from './http/client-ip';
import { durableHub } from './stream/durable';

/** Bindings and secrets of both Workers (see wrangler.toml and docs/deploy.md). */
export type WorkerEnv = Record<string, unknown> & {
  DATABASE_URL?: string;
  NEON_WS_PROXY?: string;
  /** The live stream's hub (src/stream/durable.ts). */
  STREAM_HUB?: DurableObjectNamespace;
};

/**
 * Local and test setups only: NEON_WS_PROXY (`host:port/path`) sends the Neon driver's
 * WebSocket through a plain ws:// proxy in front of an ordinary Postgres. Unset in production,
 * where the driver talks TLS to Neon's own proxy with its defaults untouched.
 */
function useLocalNeonProxy(env: WorkerEnv): void {
  const proxy = env.NEON_WS_PROXY;
  if (typeof proxy !== 'string' || !proxy) return;
  neonConfig.wsProxy = (host, port) => `${proxy}?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}

let cachedConfig: { env: WorkerEnv; config: Config } | undefined;

/** Config parsed once per isolate: bindings do not change while it lives. */
export function workerConfig(env: WorkerEnv): Config {
  if (cachedConfig?.env !== env) cachedConfig = { env, config: loadConfig(env) };
  return cachedConfig.config;
}

// Module level on purpose: one store client per isolate is safe to share across requests.
let store: Store | undefined;

/**
 * Upstash when configured. Without it each isolate counts on its own (memory), which only
 * suits `wrangler dev`: a deployed API Worker should have the UPSTASH_* secrets set.
 */
function workerStore(config: Config): Store {
  store ??=
    config.UPSTASH_REDIS_REST_URL && config.UPSTASH_REDIS_REST_TOKEN
      ? upstashStore({
          UPSTASH_REDIS_REST_URL: config.UPSTASH_REDIS_REST_URL,
          UPSTASH_REDIS_REST_TOKEN: config.UPSTASH_REDIS_REST_TOKEN,
        })
      : memoryStore();
  return store;
}

/** A database pool of its own for one invocation (or one Durable Object wake-up); close it after. */
export function workerDatabase(env: WorkerEnv, config: Config): DatabaseHandle {
  useLocalNeonProxy(env);
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL is not set on this Worker');
  return neonDatabase(config.DATABASE_URL, { statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS });
}

/**
 * Deps for one Worker invocation. Workers may not reuse a database pool across requests,
 * so each invocation gets its own and must `close()` it (in `waitUntil`).
 */
export function workerDeps(env: WorkerEnv, ctx: ExecutionContext): { deps: Deps; database: DatabaseHandle } {
  const config = workerConfig(env);
  const database = workerDatabase(env, config);
  const waitUntil = (promise: Promise<unknown>) => ctx.waitUntil(promise);
  const deps: Deps = {
    db: database.db,
    store: workerStore(config),
    config,
    now: () => new Date(),
    clientIp: workerClientIp,
    waitUntil,
    fetch: workerOutboundFetch({ allowPrivate: config.WEBHOOK_ALLOW_INSECURE }),
    log: consoleLogger(config.LOG_LEVEL),
    ...(env.STREAM_HUB ? { stream: durableHub(env.STREAM_HUB, waitUntil) } : {}),
  };
  return { deps, database };
}
