import type { Context } from 'hono';
import type { Config } from './config';
import type { Database } from './db/client';
import type { Logger } from './log';
import type { OutboundFetch } from './net/outbound';
import type { Store } from './store/types';
import type { StreamHub } from './stream/hub';

/** Everything the app needs from its runtime; each entry point (and each test) builds one. */
export interface Deps {
  db: Database;
  store: Store;
  config: Config;
  /** The clock: injected so tests can move time. */
  now: () => Date;
  /** The client address used for per-IP limits (socket, CF-Connecting-IP, or a trusted proxy). */
  clientIp: (c: Context) => string;
  /** Runs work after the response (Workers `ctx.waitUntil`; Node lets the promise run). */
  waitUntil: (promise: Promise<unknown>) => void;
  /**
   * Outbound HTTP (webhooks, LLM, source polls): the guarded fetch of src/net (address checks,
   * no redirects, timeout, body cap); injectable for tests.
   */
  fetch: OutboundFetch;
  log: Logger;
  /**
   * SVG to PNG for `map.svg?format=png`: Node only (src/embed/png-node.ts); absent on Workers,
   * where the rasteriser would not fit the bundle budget.
   */
  rasterizePng?: (svg: string) => Promise<Uint8Array<ArrayBuffer>>;
  /**
   * The live stream's fan-out (src/stream/): an in-process hub on Node, the Durable Object hub on
   * Workers; absent where no stream is served (the cron Worker without its binding, some tests).
   */
  stream?: StreamHub;
}

export interface AppEnv {
  /**
   * `internalCaller` is set only by the app itself, for a request it makes on behalf of a
   * caller it already authenticated and counted (an MCP tool call); no client can set it.
   */
  Bindings: { deps: Deps; internalCaller?: Caller };
  /** `requestId`: see `observe` (src/http/observe.ts). */
  Variables: { caller: Caller | null; requestId: string };
}

/** The authenticated key behind a request. */
export interface Caller {
  keyId: string;
  accountId: string;
  tier: 'free' | 'pro';
  prefix: string;
}

/** A JSON-lines logger on the console; `silent` drops everything (tests). */
export function consoleLogger(level: Config['LOG_LEVEL'] = 'info'): Logger {
  const order = ['debug', 'info', 'warn', 'error', 'silent'];
  const at = order.indexOf(level);
  const write = (lvl: string, message: string, fields?: Record<string, unknown>) => {
    if (order.indexOf(lvl) < at) return;
    const line = JSON.stringify({ level: lvl, time: new Date().toISOString(), message, ...fields });
    (lvl === 'error' ? console.error : console.log)(line);
  };
  return {
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}
