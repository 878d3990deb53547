import type { MiddlewareHandler } from 'hono';
import { ApiError, invalidRequest } from './problem';

const JSON_BODY_LIMIT = 64 * 1024;
/**
 * The deepest nesting a JSON body may have. No request of this API needs more than a handful of
 * levels; free-form fields (a source's `options`, MCP tool arguments) nested thousands deep
 * overflow the stack of whatever walks them next (validation, serialisation, the driver).
 */
export const JSON_DEPTH_LIMIT = 32;

/**
 * The nesting depth of a parsed JSON value, counted without recursion (so a deep value cannot
 * overflow the stack here), stopping as soon as it passes `limit`.
 */
export function jsonDepth(value: unknown, limit = JSON_DEPTH_LIMIT): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (node === null || typeof node !== 'object') continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (deepest > limit) return deepest;
    for (const child of Object.values(node))
      if (child !== null && typeof child === 'object') pending.push([child, level]);
  }
  return deepest;
}

/**
 * Guards a JSON body before validation: 415 for another content type, 413 past `maxBytes`,
 * 400 `invalid_json` when it does not parse, 400 `invalid_request` when it nests deeper than
 * `JSON_DEPTH_LIMIT`. `types` widens the accepted media types.
 */
export function jsonBody(maxBytes = JSON_BODY_LIMIT, types = ['application/json']): MiddlewareHandler {
  return async (c, next) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (!types.includes(type)) {
      throw new ApiError(415, 'unsupported_media_type', `Send the body as ${types.join(' or ')}.`);
    }
    const declared = Number(c.req.header('content-length') ?? 0);
    if (declared > maxBytes) throw tooLarge(maxBytes);
    const text = await readLimited(c.req.raw, maxBytes);
    if (type === 'application/json') {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw new ApiError(400, 'invalid_json', 'The body is not valid JSON.');
      }
      if (jsonDepth(value) > JSON_DEPTH_LIMIT) {
        const message = `must not nest objects and arrays more than ${JSON_DEPTH_LIMIT} levels deep`;
        throw invalidRequest([{ path: 'body', message }], `The body ${message}.`);
      }
    }
    await next();
  };
}

const tooLarge = (maxBytes: number) =>
  new ApiError(413, 'payload_too_large', `The body must be at most ${Math.round(maxBytes / 1024)} KiB.`);

/** Reads the body as text, stopping as soon as it passes `maxBytes` (chunked bodies too). */
async function readLimited(request: Request, maxBytes: number): Promise<string> {
  // A clone, so the validators that run next still read the original body.
  const body = request.clone().body;
  if (!body) return '';
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    parts.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.byteLength;
  }
  return new TextDecoder().decode(all);
}
