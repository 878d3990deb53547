import type { MiddlewareHandler } from 'hono';
import { ApiError } from './problem';

export const JSON_BODY_LIMIT = 64 * 1024;

/**
 * Guards a JSON body before validation: 415 for another content type, 413 past `maxBytes`,
 * 400 `invalid_json` when it does not parse. `types` widens the accepted media types.
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
      try {
        JSON.parse(text);
      } catch {
        throw new ApiError(400, 'invalid_json', 'The body is not valid JSON.');
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
