import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerOptions } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { serve, type ServerType } from '@hono/node-server';
import { createApp } from './app';
import { ConfigError, type Config } from './config';
import type { DatabaseHandle } from './db/client';
import { pgliteDatabase, postgresDatabase } from './db/node';
import { consoleLogger, type Deps } from './deps';
import { rasterizePng } from './embed/png-node';
import { nodeClientIp } from './http/client-ip';
import { readDocsScript } from './docs-assets';
import { DOCS_SCRIPT_CACHE, DOCS_SCRIPT_PATH } from './routes/docs';
import { nodeOutboundFetch } from './net/outbound-node';
import { describeCycle, startCycleTimer } from './sources/cycle';
import { ensureCatalogue } from './sources/poll-state';
import { memoryStore } from './store/memory';
import { localHub } from './stream/hub';
import { listenForChanges } from './stream/notify';
import type { Store } from './store/types';
import { upstashStore } from './store/upstash';

/** The embedded database under DATA_DIR, or the real Postgres of DATABASE_URL. */
export function openDatabase(config: Config): Promise<DatabaseHandle> {
  const statementTimeoutMs = config.DB_STATEMENT_TIMEOUT_MS;
  return config.DATABASE_URL
    ? postgresDatabase(config.DATABASE_URL, { migrate: true, statementTimeoutMs })
    : pgliteDatabase(join(config.DATA_DIR, 'pglite'), { statementTimeoutMs });
}

/** The configured store: in-memory unless Upstash is configured. */
export function openStore(config: Config, now: () => number = Date.now): Store {
  if (config.UPSTASH_REDIS_REST_URL && config.UPSTASH_REDIS_REST_TOKEN) {
    return upstashStore({
      UPSTASH_REDIS_REST_URL: config.UPSTASH_REDIS_REST_URL,
      UPSTASH_REDIS_REST_TOKEN: config.UPSTASH_REDIS_REST_TOKEN,
    });
  }
  return memoryStore(now);
}

/**
 * Node's Deps: pending work after a response just runs, with failures logged. The stream hub is
 * one per process and holds nothing until a stream opens.
 */
export function nodeDeps(
  config: Config,
  db: DatabaseHandle['db'],
  store: Store,
  overrides: Partial<Deps> = {},
): Deps {
  const log = overrides.log ?? consoleLogger(config.LOG_LEVEL);
  return {
    db,
    store,
    config,
    now: () => new Date(),
    clientIp: nodeClientIp({ trustProxy: config.TRUST_PROXY, hops: config.TRUST_PROXY_HOPS }),
    waitUntil: (promise) => {
      promise.catch((error: unknown) => log.error('background task failed', { error: String(error) }));
    },
    // Every outbound request checks the address it connects to (WEBHOOK_ALLOW_INSECURE lifts it).
    fetch: nodeOutboundFetch({ allowPrivate: config.WEBHOOK_ALLOW_INSECURE }),
    log,
    rasterizePng,
    stream: localHub({
      db,
      log,
      keyCheckMs: config.STREAM_KEY_CHECK_MS,
      listen: listenForChanges(db, log),
    }),
    ...overrides,
  };
}

export interface RunningServer {
  url: string;
  port: number;
  /** The address actually bound (`127.0.0.1`, `0.0.0.0`, `::` …). */
  host: string;
  server: ServerType;
  close(): Promise<void>;
}

let docsScript: Buffer | undefined;

/** The docs page's script, read from node_modules once (what a Worker serves as a static asset). */
function serveDocsScript(): Response {
  docsScript ??= readDocsScript();
  return new Response(new Uint8Array(docsScript), {
    headers: {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': DOCS_SCRIPT_CACHE,
      'X-Content-Type-Options': 'nosniff',
      'Access-Control-Allow-Origin': '*',
    },
  });
}

/**
 * Node's defaults let a client hold a connection for minutes (60 s for headers, 300 s for a
 * request, sent a byte at a time) and open as many as it likes; these are the server's own
 * bounds (docs/limits-and-bounds.md, "Connections"). Timeouts are checked every
 * `connectionsCheckingInterval`, so that runs at a fraction of the shortest one.
 */
function serverOptions(config: Config): ServerOptions {
  return {
    headersTimeout: config.SERVER_HEADERS_TIMEOUT_MS,
    requestTimeout: Math.max(config.SERVER_REQUEST_TIMEOUT_MS, config.SERVER_HEADERS_TIMEOUT_MS),
    keepAliveTimeout: config.SERVER_KEEP_ALIVE_TIMEOUT_MS,
    connectionsCheckingInterval: Math.max(
      50,
      Math.min(
        1_000,
        Math.floor(Math.min(config.SERVER_HEADERS_TIMEOUT_MS, config.SERVER_REQUEST_TIMEOUT_MS) / 4),
      ),
    ),
  };
}

/**
 * Refuses (closes at once) a connection from an address that already holds `max` open ones, so
 * a few slow or greedy clients cannot take every socket the process can hold. The peer is the
 * TCP peer: behind a proxy that is the proxy, so set SERVER_MAX_CONNECTIONS_PER_IP to 0 there
 * and let the proxy cap its clients.
 */
function capConnectionsPerAddress(server: ServerType, max: number) {
  if (max <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

/**
 * Turns off V8's allocation-site pretenuring for the server's process. Under load a request
 * waits on the database across young-generation collections, so V8 finds that objects made
 * at some of its allocation sites survive one and from then on allocates them straight in the
 * old generation. Dead there, they keep the young objects they point to (the request's
 * context, headers, page) alive through every young collection until a full one: the app
 * promoted 13–16 KB a request (the bare handler 0.3) and ran a full collection of its 52 MB
 * heap every 1–2 s, a third of its CPU per request (docs/performance.md). Read at every
 * collection, so setting it once at start takes effect.
 */
function tuneGarbageCollector(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}

/**
 * Serves the app on `hostname:port` (port 0 picks a free one; the host defaults to `HOST`) with
 * `deps` handed to every request.
 */
export function serveApp(deps: Deps, port: number, hostname = deps.config.HOST): Promise<RunningServer> {
  tuneGarbageCollector();
  const app = createApp();
  docsScript ??= readDocsScript();
  return new Promise((resolve) => {
    const server = serve(
      {
        fetch: (request, env) =>
          request.url.includes(DOCS_SCRIPT_PATH) && new URL(request.url).pathname === DOCS_SCRIPT_PATH
            ? serveDocsScript()
            : app.fetch(request, { ...(env as object), deps }),
        port,
        hostname,
        serverOptions: serverOptions(deps.config),
      },
      (info: AddressInfo) => {
        resolve({
          url: `http://localhost:${info.port}`,
          port: info.port,
          host: info.address,
          server,
          close: async () => {
            // Open streams end first, each with its resumable cursor.
            await deps.stream?.close();
            await new Promise<void>((done) => {
              server.close(() => done());
              (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
            });
          },
        });
      },
    );
    capConnectionsPerAddress(server, deps.config.SERVER_MAX_CONNECTIONS_PER_IP);
  });
}

/** ADMIN_TOKEN, or one generated once and kept under DATA_DIR so it survives restarts. */
export function adminToken(config: Config): string {
  if (config.ADMIN_TOKEN) return config.ADMIN_TOKEN;
  const file = join(config.DATA_DIR, 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(config.DATA_DIR, { recursive: true });
  const token = `adm_${randomBytes(24).toString('base64url')}`;
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}

/**
 * `--reset-demo` (`npm run demo:reset`): drops the embedded demo database and its demo key, so
 * this start loads the demo afresh, dated relative to now (otherwise the demo ages from its first
 * start). Never a real Postgres (DATABASE_URL) nor the live database. Returns what it removed.
 */
export function resetDemoDatabase(config: Config): string {
  if (config.DATABASE_URL)
    throw new ConfigError(['--reset-demo resets the embedded demo database; unset DATABASE_URL']);
  if (config.LIVE_SOURCES)
    throw new ConfigError(['--reset-demo resets the demo database; unset LIVE_SOURCES']);
  const dir = join(config.DATA_DIR, 'pglite');
  rmSync(dir, { recursive: true, force: true });
  rmSync(join(config.DATA_DIR, 'demo-key'), { force: true });
  return dir;
}

/**
 * With LIVE_SOURCES the server and the CLI use their own embedded database beside the demo one
 * (`DATA_DIR`-live, `.data-live/`, with its own generated tokens), never mixed with demo data.
 */
export const liveAwareConfig = (config: Config): Config =>
  config.LIVE_SOURCES ? { ...config, DATA_DIR: `${config.DATA_DIR.replace(/\/+$/, '')}-live` } : config;

/**
 * LIVE_SOURCES on the Node server: adds the catalogue to a database without sources, then
 * polls the due ones at once and every minute after (each source keeps its own interval),
 * dispatching webhooks in the same run, and prints what each poll brought.
 */
export async function startLiveSources(deps: Deps, print: (line: string) => void = console.log) {
  const added = await ensureCatalogue(deps.db);
  if (added > 0) print(`Live sources: added the ${added} sources of the built-in catalogue.`);
  print('Live sources on: polling the due ones now and every minute.');
  return startCycleTimer(deps, {
    onCycle: (summary) => {
      for (const line of describeCycle(summary)) print(`[${new Date().toISOString()}] ${line}`);
    },
  });
}
