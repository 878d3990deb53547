import { isPublicAddress } from '../net/address';

/**
 * The webhook URL policy (SSRF): a webhook may only point at a public HTTPS endpoint on port
 * 443 (or a port the operator lists in WEBHOOK_ALLOWED_PORTS). Checked at create, update and
 * send time. This sees only the URL's literal host; names are checked again at connect time by
 * the outbound fetch (src/net/outbound-node.ts), on every DNS answer. `allowInsecure`
 * (WEBHOOK_ALLOW_INSECURE, for local development and tests) lifts every rule but the scheme.
 */

const BLOCKED_NAMES = new Set([
  'localhost',
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);
// `.svc`: Kubernetes service names (`kubernetes.default.svc`) resolve inside a cluster only.
const BLOCKED_SUFFIXES = ['.localhost', '.local', '.internal', '.localdomain', '.home.arpa', '.svc'];

/** The port every webhook may use; others only when the operator allows them. */
const DEFAULT_WEBHOOK_PORT = 443;

/**
 * Why `raw` may not be a webhook URL, or null when it may. The WHATWG URL parser already turns
 * decimal, hex and octal IPv4 forms (`https://2130706433/`, `0x7f.1`) into dotted quads, and
 * IPv6 literals into their canonical form, so each is checked in one shape.
 */
export function urlProblem(
  raw: string,
  allowInsecure: boolean,
  allowedPorts: readonly number[] = [],
): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) {
    return 'must be an https:// URL';
  }
  if (url.username || url.password) return 'must not contain credentials';
  if (allowInsecure) return null;
  // URL drops a scheme's default port, so an empty port is 443 here (https only by now).
  const port = url.port ? Number(url.port) : DEFAULT_WEBHOOK_PORT;
  if (port !== DEFAULT_WEBHOOK_PORT && !allowedPorts.includes(port)) {
    return `must use port ${[DEFAULT_WEBHOOK_PORT, ...allowedPorts].join(' or ')}`;
  }
  return hostProblem(url);
}

/**
 * Why a source (a polled feed) may not be at `raw`, or null when it may: the webhook rules for
 * the scheme (http too: many feeds are plain http), credentials and host, any port. Checked when
 * an operator adds or changes a source; names are checked again at connect time on every poll.
 * `allowInsecure` (WEBHOOK_ALLOW_INSECURE) lifts the host rule, for feeds served on loopback
 * in development and tests.
 */
export function feedUrlProblem(raw: string, allowInsecure: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http(s) URL';
  if (url.username || url.password) return 'must not contain credentials';
  return allowInsecure ? null : hostProblem(url);
}

/** Why `url`'s literal host is not a public one, or null when it is. */
function hostProblem(url: URL): string | null {
  const host = url.hostname.toLowerCase().replace(/\.+$/, '');
  if (host.startsWith('[')) {
    return isPublicAddress(host.slice(1, -1))
      ? null
      : 'must not point at a private, loopback or link-local address';
  }
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) {
    return isPublicAddress(host) ? null : 'must not point at a private, loopback or link-local address';
  }
  if (!host.includes('.') || BLOCKED_NAMES.has(host) || BLOCKED_SUFFIXES.some((s) => host.endsWith(s))) {
    return 'must be a public host name';
  }
  return null;
}
