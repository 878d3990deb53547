import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import type { AppEnv } from '../deps';

/** A rendered public read: exactly the bytes sent, their headers, and their validator. */
export interface Representation {
  body: string;
  headers: Record<string, string>;
  etag: string;
}

/** Bodies above this are not cached in the store (Upstash values are capped at 1 MB). */
const MAX_CACHED_CHARS = 256 * 1024;
const STORE_TIMEOUT_MS = 1000;
const CACHE_PREFIX = 'public:v1:';

const base64url = (bytes: ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');

async function sha256(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
}

/**
 * A strong ETag over the exact body bytes (SHA-256, 128 bits): equal bodies, equal tags, so
 * every instance and the store agree without coordination. A proxy that compresses may weaken
 * it to `W/"…"`; `ifNoneMatchHits` compares weakly, as RFC 9110 §13.1.2 asks.
 */
export async function strongEtag(body: string): Promise<string> {
  return `"${base64url((await sha256(body)).slice(0, 16))}"`;
}

/**
 * A weak ETag over a value's data (SHA-256 of its JSON): for answers that state the time they
 * were computed, so the tag follows the data and a client that already has it gets a 304 while
 * it has not changed, whenever it asks.
 */
export async function dataEtag(value: unknown): Promise<string> {
  return `W/${await strongEtag(JSON.stringify(value))}`;
}

/** True when an `If-None-Match` header names `etag` (weak comparison, `*` matches anything). */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const wanted = opaque(etag);
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === wanted);
}

/**
 * The request's known query parameters in name order (others, such as `api_key`, dropped):
 * one cache entry and one canonical self link per distinct selection.
 */
export function canonicalQuery(requestUrl: string, names: readonly string[]): string {
  const given = new URL(requestUrl).searchParams;
  const kept = new URLSearchParams();
  for (const name of [...names].sort()) {
    const value = given.get(name);
    if (value !== null) kept.set(name, value);
  }
  return kept.toString();
}

/** A short store key for a public read, from everything its body depends on. */
export async function publicCacheKey(...parts: string[]): Promise<string> {
  return CACHE_PREFIX + base64url(await sha256(JSON.stringify(parts)));
}

async function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('store timeout')), STORE_TIMEOUT_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function cached(deps: AppEnv['Bindings']['deps'], key: string) {
  try {
    return await withTimeout(deps.store.get<Representation>(key));
  } catch (error) {
    // A cache that is down must not take the public reads with it: render from the database.
    deps.log.warn('public cache unavailable; rendering fresh', { error: String(error) });
    return null;
  }
}

/**
 * Serves a public read through the store cache: a hit (or a `304` for a matching
 * `If-None-Match`) costs no database query. A miss renders, tags and caches for `maxAge`
 * seconds, and says the same lifetime in `Cache-Control` so browsers and CDNs share the load.
 */
export async function cachedPublicRead(
  c: Context<AppEnv>,
  options: { key: string; maxAge: number },
  render: () => Promise<Omit<Representation, 'etag'>>,
): Promise<Response> {
  // `log` is read only on failure: the request's logger is made on first read (see `observe`).
  const { deps } = c.env;
  const { store, waitUntil } = deps;
  let representation = await cached(deps, options.key);
  if (!representation) {
    const fresh = await render();
    representation = { ...fresh, etag: await strongEtag(fresh.body) };
    if (fresh.body.length <= MAX_CACHED_CHARS) {
      const saving = representation;
      waitUntil(
        withTimeout(store.set(options.key, saving, options.maxAge)).catch((error: unknown) =>
          deps.log.warn('public cache write failed', { error: String(error) }),
        ),
      );
    }
  }
  const validators = {
    ETag: representation.etag,
    'Cache-Control': `public, max-age=${options.maxAge}`,
  };
  if (ifNoneMatchHits(c.req.header('if-none-match'), representation.etag)) {
    return c.body(null, 304, validators);
  }
  return c.body(representation.body, 200, { ...representation.headers, ...validators });
}

/** Headers a 304 keeps from the 200 it stands for (RFC 9110 §15.4.5), as `hono/etag` keeps them. */
const KEPT_BY_304 = new Set(['cache-control', 'content-location', 'date', 'etag', 'expires', 'vary']);
const DIGEST_CHUNK = 256 * 1024;

/**
 * `hono/etag`'s tag for `body`: hex SHA-1 of its bytes, chained over 256 KiB blocks (each
 * block hashed after the previous block's digest), so the tags already handed out stay valid.
 */
function bodyDigest(body: string): string {
  const bytes = new TextEncoder().encode(body);
  let digest: Uint8Array | undefined;
  for (let offset = 0; offset < bytes.length; offset += DIGEST_CHUNK) {
    const hash = createHash('sha1');
    if (digest) hash.update(digest);
    digest = hash.update(bytes.subarray(offset, offset + DIGEST_CHUNK)).digest();
  }
  return digest ? Buffer.from(digest).toString('hex') : '';
}

/**
 * `value` as JSON with a strong ETag over its bytes, or a 304 when `If-None-Match` names it:
 * what `hono/etag` did after the handler, computed as the answer is written. The middleware
 * cloned the finished response, read it back as a stream and hashed it with WebCrypto (a
 * thread-pool hop), then made Node write it as a stream; a cached public read paid all that
 * on every request, hit or miss.
 */
export function etaggedJson(c: Context, value: unknown): Response {
  const body = JSON.stringify(value);
  const etag = `"${bodyDigest(body)}"`;
  const wanted = c.req.header('if-none-match');
  c.header('ETag', etag);
  const full = c.body(body, 200, { 'Content-Type': 'application/json' });
  if (!ifNoneMatchHits(wanted, etag)) return full;
  const kept: Record<string, string> = {};
  full.headers.forEach((headerValue, name) => {
    if (KEPT_BY_304.has(name)) kept[name] = headerValue;
  });
  return new Response(null, { status: 304, statusText: 'Not Modified', headers: kept });
}
