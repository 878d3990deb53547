import { Buffer } from 'node:buffer';

/**
 * Where answers are encoded before their exact length is known: UTF-8 takes at most three bytes
 * per UTF-16 unit, so a text of n units always fits in 3n. Measuring first (`Buffer.byteLength`)
 * walked the whole page a second time, about a quarter of the encoding's cost on a page with
 * non-ASCII text; copying the encoded bytes out is a plain memory copy. Module level on purpose:
 * encoding is synchronous, so no two answers ever share it; it grows to the largest answer seen
 * up to `SCRATCH_MAX`, beyond which an answer is measured and encoded in place.
 */
let scratch = Buffer.allocUnsafe(0);
const SCRATCH_MAX = 4 * 1024 * 1024;

/**
 * `parts` joined as one UTF-8 body, encoded once: for an answer built around a large text
 * (a page Postgres wrote). Sent as a string, the joined text was copied whole twice more on
 * the heap: @hono/node-server flattens it to measure its length, and Node prepends the header
 * block to it (another flat copy) before encoding it; two copies of every page made the app's
 * garbage three times the bare handler's. Bytes are written to the socket as they are.
 * @example c.body(utf8Body('{"data":', page, '}'), 200, { 'Content-Type': 'application/json' })
 */
export function utf8Body(...parts: string[]): Uint8Array<ArrayBuffer> {
  let bound = 0;
  for (const part of parts) bound += part.length * 3;
  if (bound > SCRATCH_MAX) return measuredBody(parts);
  if (bound > scratch.length) scratch = Buffer.allocUnsafe(Math.max(bound, 64 * 1024));
  let length = 0;
  for (const part of parts) length += scratch.write(part, length);
  const body = Buffer.allocUnsafe(length);
  scratch.copy(body, 0, 0, length);
  return body;
}

/** `parts` encoded into a buffer of their exact length, measured first. */
function measuredBody(parts: string[]): Uint8Array<ArrayBuffer> {
  let length = 0;
  for (const part of parts) length += Buffer.byteLength(part);
  const body = Buffer.allocUnsafe(length);
  let at = 0;
  for (const part of parts) at += body.write(part, at);
  return body;
}
