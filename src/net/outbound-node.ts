import { promises as dns, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from './address';
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_TIMEOUT_MS,
  NULL_BODY_STATUSES,
  OutboundError,
  TRUNCATED_HEADER,
  type OutboundFetch,
} from './outbound';

/** Resolves a host name to its addresses; injectable so tests can serve any answer. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

export interface NodeOutboundOptions {
  /** WEBHOOK_ALLOW_INSECURE: connect to any address (local development and tests only). */
  allowPrivate?: boolean;
  resolve?: Resolver;
}

/**
 * A connect-time `lookup` for node:net: resolves, refuses the whole answer when any address in
 * it is not public, and hands the socket exactly the addresses it checked, so there is no
 * window between check and connect for a rebinding DNS server to use.
 */
function guardedLookup(resolve: Resolver, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (answers) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = answers.filter((a) => !wanted || a.family === wanted);
        if (usable.length === 0) {
          const error = Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
          return callback(error, '', 0);
        }
        if (!allowPrivate && answers.some((a) => !isPublicAddress(a.address))) {
          return callback(new OutboundError('blocked_address', hostname), '', 0);
        }
        if (options.all) return callback(null, usable);
        callback(null, usable[0]!.address, usable[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

function requestBody(body: RequestInit['body']): Buffer | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof URLSearchParams) return Buffer.from(body.toString(), 'utf8');
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('outbound requests send a string or bytes');
}

function responseHeaders(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    for (const one of Array.isArray(value) ? value : [value ?? '']) {
      try {
        headers.append(name, one);
      } catch {
        // A header value fetch would refuse is dropped, not fatal.
      }
    }
  }
  return headers;
}

/**
 * The Node implementation of `OutboundFetch`: node:http(s) with the guarded `lookup`. IP
 * literals never reach `lookup` (node:net connects to them directly), so they are checked here.
 * Redirects are never followed; the body is read up to `maxBodyBytes` and the socket dropped.
 */
export function nodeOutboundFetch(options: NodeOutboundOptions = {}): OutboundFetch {
  const allowPrivate = options.allowPrivate ?? false;
  const lookup = guardedLookup(options.resolve ?? systemResolver, allowPrivate);
  // Own agents, without keep-alive: a pooled socket is never shared with another guard setting.
  const agents = { http: new HttpAgent({ keepAlive: false }), https: new HttpsAgent({ keepAlive: false }) };
  return (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(String(input));
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        return reject(new TypeError(`outbound requests use http or https, not ${url.protocol}`));
      }
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) && !allowPrivate && !isPublicAddress(host)) {
        return reject(new OutboundError('blocked_address', host));
      }
      const timeoutMs = init.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const maxBodyBytes = init.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
      const body = requestBody(init.body);
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, name) => (headers[name] = value));
      if (body) headers['content-length'] = String(body.byteLength);
      const https = url.protocol === 'https:';
      const req = (https ? httpsRequest : httpRequest)({
        protocol: url.protocol,
        hostname: host,
        port: url.port || (https ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: init.method ?? 'GET',
        headers,
        lookup,
        agent: https ? agents.https : agents.http,
      });
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        cleanup();
        req.destroy();
        reject(error);
      };
      const timer = setTimeout(() => fail(new OutboundError('timeout')), timeoutMs);
      const onAbort = () => {
        const reason: unknown = init.signal?.reason;
        if (reason instanceof Error && reason.name === 'TimeoutError') fail(new OutboundError('timeout'));
        else fail(reason instanceof Error ? reason : new Error('aborted', { cause: reason }));
      };
      const cleanup = () => {
        clearTimeout(timer);
        init.signal?.removeEventListener('abort', onAbort);
      };
      if (init.signal?.aborted) return onAbort();
      init.signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', fail);
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 599)
          return fail(new OutboundError('connect_failed', `status ${status}`));
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        const finish = () => {
          if (settled) return;
          settled = true;
          cleanup();
          const out = responseHeaders(res);
          out.delete('content-length');
          out.delete('transfer-encoding');
          if (truncated) out.set(TRUNCATED_HEADER, '1');
          const bytes = Buffer.concat(chunks);
          resolve(
            new Response(NULL_BODY_STATUSES.has(status) ? null : new Uint8Array(bytes), {
              status,
              statusText: res.statusMessage ?? '',
              headers: out,
            }),
          );
        };
        res.on('data', (chunk: Buffer) => {
          if (settled) return;
          const room = maxBodyBytes - size;
          if (chunk.byteLength >= room) {
            chunks.push(chunk.subarray(0, room));
            size = maxBodyBytes;
            truncated = chunk.byteLength > room;
            if (truncated) {
              finish();
              res.destroy();
              req.destroy();
            }
            return;
          }
          chunks.push(chunk);
          size += chunk.byteLength;
        });
        res.on('end', finish);
        res.on('error', fail);
        res.on('aborted', () => fail(new OutboundError('connect_failed', 'response aborted')));
      });
      req.end(body ?? undefined);
    });
}
