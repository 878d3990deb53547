/**
 * The request's own origin and the `Host` header check it rests on: used by the problem+json
 * `instance` and by the public base URL (./base-url.ts), so neither imports the other.
 */
import type { Context } from 'hono';

/** One DNS label: letters, digits and inner hyphens, 1–63 characters. */
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOSTNAME = `${LABEL}(?:\\.${LABEL})*\\.?`;
const IPV4 = '(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV6 = '\\[[0-9a-f:.]{2,45}\\]';
const PORT = '(?::(?:6553[0-5]|655[0-2]\\d|65[0-4]\\d\\d|6[0-4]\\d{3}|[1-5]\\d{4}|[1-9]\\d{0,3}))?';
const VALID_HOST = new RegExp(`^(?:${IPV4}|${IPV6}|${HOSTNAME})${PORT}$`, 'i');

/** True when `host` is a syntactically valid `Host` header value: a host name or IP, optional port. */
export function isValidHost(host: string): boolean {
  if (host.length > 260 || !VALID_HOST.test(host)) return false;
  if (!host.startsWith('[')) return true;
  try {
    // The bracket form is checked by the URL parser, which knows every IPv6 spelling.
    return new URL(`http://${host}/`).host.length > 0;
  } catch {
    return false;
  }
}

/** The request's own origin, lower-cased, or undefined when its `Host` header is not a valid host. */
export function requestOrigin(c: Context): string | undefined {
  const url = new URL(c.req.url);
  const host = c.req.header('host') ?? url.host;
  return isValidHost(host) ? `${url.protocol}//${host.toLowerCase()}` : undefined;
}
