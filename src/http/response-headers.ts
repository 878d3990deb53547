import type { Context } from 'hono';

type HeaderValues = Record<string, string | string[]>;
type Responder = (data: unknown, arg?: unknown, headers?: HeaderValues) => Response | Promise<Response>;

/** Hono's default types for `c.json` and `c.text`, which a `Content-Type` passed to them overrides. */
const JSON_TYPE = 'application/json';
const TEXT_TYPE = 'text/plain; charset=UTF-8';

/**
 * Keeps one request's response headers in a plain record and builds its response from it, with
 * Hono's semantics (`c.header`, `c.status`, `c.body`, `c.json`, `c.text`, `c.newResponse`;
 * names as Hono's `Headers` write them, in lower case). Hono keeps them in a WHATWG `Headers`,
 * whose every `set` validates and normalises, and which @hono/node-server must sort and copy
 * into a record again to write them: about fifteen headers on every answer made that a large
 * part of the app's own CPU per request. A record is written by Node as it is.
 *
 * What a record cannot say (an appended value, `Set-Cookie`, a `ResponseInit`, a list of values,
 * `c.html`) hands everything collected so far back to Hono, which then serves the request
 * exactly as before. `beforeRespond` runs as each response is built (Server-Timing).
 */
export function plainHeaders(c: Context, beforeRespond: (headers: Record<string, string>) => void): void {
  const record: Record<string, string> = {};
  let status: number | undefined;
  const hono = {
    header: c.header,
    status: c.status,
    body: c.body as Responder,
    json: c.json as Responder,
    text: c.text as Responder,
    newResponse: c.newResponse as Responder,
  };
  let handedOver = false;
  const handOver = () => {
    if (handedOver) return;
    handedOver = true;
    Object.assign(c, hono);
    if (status !== undefined) hono.status(status as never);
    for (const name in record) hono.header(name, record[name]);
  };
  const respond =
    (name: 'body' | 'json' | 'text' | 'newResponse', type?: string): Responder =>
    (data, arg, headers) => {
      // A body without a type is left to Hono, whose writer gives it one (text/plain).
      const plain =
        (arg === undefined || typeof arg === 'number') &&
        (headers === undefined || Object.values(headers).every((value) => typeof value === 'string')) &&
        (data === null ||
          type !== undefined ||
          'content-type' in record ||
          Object.keys(headers ?? {}).some((key) => key.toLowerCase() === 'content-type'));
      if (!plain || handedOver) {
        handOver();
        beforeRespondOnHono(c, beforeRespond);
        return hono[name](data, arg, headers);
      }
      beforeRespond(record);
      if (type) record['content-type'] = type;
      for (const key in headers) record[key.toLowerCase()] = headers[key] as string;
      const body = name === 'json' ? JSON.stringify(data) : data;
      return new Response(body as BodyInit | null, { status: arg ?? status, headers: record });
    };
  c.header = (name, value, options) => {
    // After the answer is made, Hono's own `header` edits it; appends and cookies need `Headers`.
    if (c.finalized) return hono.header(name, value, options);
    const key = name.toLowerCase();
    if (handedOver || options?.append || key === 'set-cookie') {
      handOver();
      return hono.header(name, value, options);
    }
    if (value === undefined) delete record[key];
    else record[key] = value;
  };
  c.status = (code) => {
    status = code;
    if (handedOver) hono.status(code);
  };
  c.body = respond('body') as typeof c.body;
  c.newResponse = respond('newResponse') as typeof c.newResponse;
  c.json = respond('json', JSON_TYPE) as typeof c.json;
  c.text = respond('text', TEXT_TYPE) as typeof c.text;
  const html = c.html;
  c.html = ((...args: Parameters<typeof c.html>) => {
    handOver();
    beforeRespondOnHono(c, beforeRespond);
    return html(...args);
  }) as typeof c.html;
}

/** Runs `beforeRespond` on a scratch record and hands what it set to Hono's headers. */
function beforeRespondOnHono(c: Context, beforeRespond: (headers: Record<string, string>) => void) {
  const added: Record<string, string> = {};
  beforeRespond(added);
  for (const name in added) c.header(name, added[name]);
}
