/**
 * Test-only stand-in for the Upstash Redis REST API, backed by a real Redis.
 *
 * Implements what `@upstash/redis` (node / cloudflare entry points) and
 * `@upstash/ratelimit` send (see node_modules/@upstash/redis/chunk-*.mjs,
 * `HttpClient.request` and `Pipeline.exec`):
 *
 *   POST /            body ["SET","k","v"]            -> 200 { result } | 400 { error }
 *   POST /pipeline    body [["SET","k","v"], ...]     -> 200 [{ result } | { error }, ...]
 *   POST /multi-exec  same, run atomically (MULTI/EXEC) -> 200 [...] | 400 { error } (EXECABORT)
 *
 * Auth is `Authorization: Bearer <token>` (401 otherwise). With the
 * `Upstash-Encoding: base64` request header (the client default) every string
 * in a result is base64 encoded except the status reply "OK", which is what
 * the client's `decode()` expects. Replies are RESP2-shaped (flat arrays,
 * doubles as strings) like the real service.
 *
 * Redis 7.0 rejects the `#!lua flags=allow-key-locking` shebang used by
 * `@upstash/ratelimit` 2.x, so EVAL / SCRIPT LOAD strip that flag, and
 * EVALSHA translates the sha the client computed from the original script
 * into the sha of the script Redis actually holds.
 *
 * With `keyPrefix`, every key a command names (EVAL's KEYS included) is stored
 * under that prefix, so a client whose own prefix is fixed (the Workers' `si`)
 * still gets a namespace of its own per test run. Commands whose key positions
 * the bridge does not know are refused rather than let out of the namespace.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';

export interface UpstashBridgeOptions {
  /** Defaults to TEST_REDIS_URL, then redis://127.0.0.1:6379. */
  redisUrl?: string;
  /** Defaults to a random token. */
  token?: string;
  /** Stores every key as `<keyPrefix>:<key>` (see the module comment). */
  keyPrefix?: string;
}

export type PauseMode =
  /** Answer every request with 503 { error } (the client throws at once). */
  | 'error'
  /** Hold requests without answering until resume() (exercises client timeouts). */
  | 'hang';

export interface UpstashBridge {
  /** Base URL for `new Redis({ url, token })`. */
  url: string;
  token: string;
  /** Simulate the store being down until resume(). */
  pause(mode?: PauseMode): void;
  resume(): void;
  close(): Promise<void>;
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type Reply = { result: Json } | { error: string };

interface PreparedCommand {
  name: string;
  args: string[];
  /** Adjusts Redis's raw reply (SCRIPT LOAD answers with the client's sha). */
  fixReply?: (reply: unknown) => unknown;
}

/** Thrown for malformed requests; mapped to 400. */
class BadRequest extends Error {}

/**
 * Where a command names its keys, for `keyPrefix`: its first argument, every argument, or
 * EVAL's `script numkeys key…` form. Covers what the store adapter and @upstash/ratelimit send.
 */
const KEY_POSITIONS: Record<string, 'none' | 'first' | 'all' | 'eval'> = {
  PING: 'none',
  ECHO: 'none',
  SCRIPT: 'none',
  TIME: 'none',
  DEL: 'all',
  UNLINK: 'all',
  EXISTS: 'all',
  MGET: 'all',
  TOUCH: 'all',
  EVAL: 'eval',
  EVALSHA: 'eval',
  EVAL_RO: 'eval',
  EVALSHA_RO: 'eval',
  ...Object.fromEntries(
    [
      'GET',
      'SET',
      'SETEX',
      'PSETEX',
      'SETNX',
      'GETDEL',
      'GETEX',
      'INCR',
      'INCRBY',
      'DECR',
      'DECRBY',
      'EXPIRE',
      'PEXPIRE',
      'TTL',
      'PTTL',
      'PERSIST',
      'TYPE',
      'HSET',
      'HGET',
      'HGETALL',
      'HDEL',
      'HINCRBY',
      'HMGET',
      'ZADD',
      'ZREM',
      'ZCARD',
      'ZSCORE',
      'ZRANGE',
      'ZINCRBY',
      'SADD',
      'SREM',
      'SMEMBERS',
      'SCARD',
    ].map((name) => [name, 'first' as const]),
  ),
};

/** `args` of command `name` with every key under `prefix`. */
function prefixKeys(name: string, args: string[], prefix: string): string[] {
  const position = KEY_POSITIONS[name];
  if (position === undefined) throw new BadRequest(`ERR ${name} is not supported with a key prefix`);
  // An empty key is a placeholder (ratelimit's unused dynamic-limit key): it stays empty.
  const under = (key: string) => (key === '' ? key : `${prefix}:${key}`);
  if (position === 'first') return args.length > 0 ? [under(args[0]!), ...args.slice(1)] : args;
  if (position === 'all') return args.map(under);
  if (position === 'eval') {
    const count = Number(args[1]);
    if (!Number.isInteger(count) || count < 0) return args;
    return args.map((arg, i) => (i >= 2 && i < 2 + count ? under(arg) : arg));
  }
  return args;
}

const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

/** Command errors reported by Redis itself (vs. connection problems). */
const isReplyError = (err: unknown): err is Error => err instanceof Error && err.name === 'ReplyError';

export async function startUpstashBridge(opts: UpstashBridgeOptions = {}): Promise<UpstashBridge> {
  const redisUrl = opts.redisUrl ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const token = opts.token ?? randomBytes(16).toString('hex');

  // protocol 2: RESP2 reply shapes, like Upstash's REST API.
  const redis = new Redis(redisUrl, {
    protocol: 2,
    lazyConnect: true,
    connectTimeout: 3_000,
    maxRetriesPerRequest: 1,
  });
  // Keep the last socket error: connect() itself only reports "Connection is closed."
  let lastError: Error | undefined;
  redis.on('error', (err: Error) => (lastError = err));
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    const reason = lastError ?? (err as Error);
    throw new Error(`Upstash bridge: Redis at ${redisUrl} is unreachable: ${reason.message}`, { cause: err });
  }

  /** sha1(original script) -> sha1(script as rewritten and loaded into Redis). */
  const shaMap = new Map<string, string>();

  function rewriteScript(script: string): string {
    const rewritten = script.replace(/^#!lua flags=([^\n]*)/, (_line, flags: string) => {
      const kept = flags
        .split(',')
        .map((flag) => flag.trim())
        .filter((flag) => flag !== '' && flag !== 'allow-key-locking');
      return kept.length > 0 ? `#!lua flags=${kept.join(',')}` : '#!lua';
    });
    if (rewritten !== script) shaMap.set(sha1(script), sha1(rewritten));
    return rewritten;
  }

  const realSha = (sha: string): string => shaMap.get(sha.toLowerCase()) ?? sha;

  function prepare(command: unknown): PreparedCommand {
    if (!Array.isArray(command) || command.length === 0) {
      throw new BadRequest('ERR command must be a non-empty JSON array');
    }
    // The client sends strings, numbers and booleans (objects arrive pre-stringified).
    const [rawName, ...rawArgs] = command.map((part: unknown) =>
      typeof part === 'string'
        ? part
        : typeof part === 'object'
          ? JSON.stringify(part)
          : String(part as number | boolean),
    );
    // Upper-case on purpose: ioredis picks reply transformers (e.g. hgetall ->
    // object) by the exact lower-case name; we want the raw RESP reply.
    const name = rawName!.toUpperCase();
    const args = opts.keyPrefix === undefined ? rawArgs : prefixKeys(name, rawArgs, opts.keyPrefix);
    if ((name === 'EVAL' || name === 'EVAL_RO') && args[0] !== undefined) {
      args[0] = rewriteScript(args[0]);
    } else if ((name === 'EVALSHA' || name === 'EVALSHA_RO') && args[0] !== undefined) {
      // Unknown shas go through unchanged; Redis answers NOSCRIPT and the
      // client falls back to EVAL, which records the mapping.
      args[0] = realSha(args[0]);
    } else if (name === 'SCRIPT') {
      const sub = args[0]?.toUpperCase();
      if (sub === 'LOAD' && args[1] !== undefined) {
        const clientSha = sha1(args[1]);
        args[1] = rewriteScript(args[1]);
        return { name, args, fixReply: () => clientSha };
      }
      if (sub === 'EXISTS') return { name, args: [args[0]!, ...args.slice(1).map(realSha)] };
    }
    return { name, args };
  }

  function encode(value: unknown, base64: boolean): Json {
    if (value === null || value === undefined) return null;
    if (typeof value === 'number') return value;
    if (Array.isArray(value)) return value.map((item) => encode(item, base64));
    if (value instanceof Error) return encode(value.message, base64);
    const buffer = Buffer.isBuffer(value) ? value : Buffer.from(String(value as string | number));
    if (!base64) return buffer.toString('utf8');
    // The client decodes every string from base64 except the literal "OK".
    return buffer.equals(OK) ? 'OK' : buffer.toString('base64');
  }
  const OK = Buffer.from('OK');

  async function runOne(command: unknown, base64: boolean): Promise<{ status: number; body: Reply }> {
    const { name, args, fixReply = (r) => r } = prepare(command);
    try {
      const reply = await redis.callBuffer(name, ...args);
      return { status: 200, body: { result: encode(fixReply(reply), base64) } };
    } catch (err) {
      if (isReplyError(err)) return { status: 400, body: { error: err.message } };
      throw err;
    }
  }

  async function runBatch(commands: unknown, atomic: boolean, base64: boolean): Promise<Reply[]> {
    if (!Array.isArray(commands) || commands.length === 0) {
      throw new BadRequest('ERR body must be a non-empty JSON array of commands');
    }
    const prepared = commands.map(prepare);
    // One write on the shared connection; for MULTI the commands are therefore
    // never interleaved with other requests.
    const batch = atomic ? redis.multi() : redis.pipeline();
    for (const { name, args } of prepared) batch.callBuffer(name, ...args);
    const results = (await batch.exec()) ?? [];
    return results.map(([err, reply], i): Reply => {
      if (err) return { error: err.message };
      const fixReply = prepared[i]!.fixReply ?? ((r: unknown) => r);
      return { result: encode(fixReply(reply), base64) };
    });
  }

  let pauseMode: PauseMode | undefined;
  let released: Promise<void> = Promise.resolve();
  let release = (): void => {};

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (pauseMode === 'hang') await released;
    if (pauseMode === 'error') return send(503, { error: 'Service Unavailable (upstash bridge paused)' });

    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: 'Unauthorized' });
    if (req.method !== 'POST') return send(405, { error: 'Method Not Allowed' });

    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return send(400, { error: 'ERR failed to parse request body as JSON' });
    }

    const base64 = String(req.headers['upstash-encoding']).toLowerCase() === 'base64';
    const path = new URL(req.url ?? '/', 'http://bridge').pathname;
    try {
      if (path === '/') {
        const { status, body: reply } = await runOne(body, base64);
        return send(status, reply);
      }
      if (path === '/pipeline' || path === '/multi-exec') {
        return send(200, await runBatch(body, path === '/multi-exec', base64));
      }
      return send(404, { error: `Not Found: ${path}` });
    } catch (err) {
      // BadRequest, or EXECABORT from a transaction whose commands failed to queue.
      if (err instanceof BadRequest || isReplyError(err)) return send(400, { error: err.message });
      return send(500, { error: `ERR upstash bridge: ${(err as Error).message}` });
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(JSON.stringify({ error: String(err) }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    pause(mode = 'error') {
      if (mode === 'hang' && pauseMode !== 'hang') released = new Promise((resolve) => (release = resolve));
      pauseMode = mode;
    },
    resume() {
      pauseMode = undefined;
      release();
    },
    async close() {
      pauseMode = undefined;
      release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
