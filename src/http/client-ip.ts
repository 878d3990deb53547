import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';

/**
 * The one place the client address for per-IP limits is read, on every runtime.
 *
 * - IPv6 clients are bucketed by their /64: one subscriber line (or one cloud VM) commonly owns
 *   a whole /64, so counting full addresses would give it 2^64 buckets.
 * - IPv4-mapped IPv6 (`::ffff:a.b.c.d`, what a dual-stack Node socket reports) counts as the
 *   IPv4 address.
 * - Anything that is not an IP address stays as it is (`unknown` when nothing was found).
 */

/**
 * The rate-limit bucket of an address: IPv4 itself, IPv6 its /64 as `a:b:c:d::/64`.
 * @example clientBucket('2001:db8:1:2:aaaa::1') // '2001:db8:1:2::/64'
 * @example clientBucket('::ffff:198.51.100.7') // '198.51.100.7'
 */
export function clientBucket(address: string): string {
  const trimmed = address.trim().replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(trimmed)) return trimmed || 'unknown';
  const parsed = ipaddr.process(trimmed);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const words = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${words.map((w) => w.toString(16)).join(':')}::/64`;
}

/**
 * The client entry of `X-Forwarded-For` behind `hops` trusted proxies: each proxy appends the
 * address it received the request from, so the client as the outermost trusted proxy saw it is
 * the `hops`-th entry from the right. Everything left of it was written by the client and is
 * ignored. Undefined when the header is missing or that entry is not an IP address.
 * @example forwardedClient('6.6.6.6, 198.51.100.7', 1) // '198.51.100.7'
 */
export function forwardedClient(header: string | undefined, hops: number): string | undefined {
  if (!header) return undefined;
  const entries = header
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) return undefined;
  // Fewer entries than proxies: the leftmost was still written by a trusted proxy.
  const entry = entries[Math.max(0, entries.length - Math.max(1, hops))]!;
  const bare = entry.replace(/^\[([^\]]+)\](:\d+)?$/, '$1').replace(/^(\d+\.\d+\.\d+\.\d+):\d+$/, '$1');
  return ipaddr.isValid(bare) ? bare : undefined;
}

/**
 * Node: the socket's address, or with TRUST_PROXY the client entry of `X-Forwarded-For` (see
 * `forwardedClient`), bucketed.
 */
export function nodeClientIp(options: { trustProxy: boolean; hops: number }) {
  return (c: Context): string => {
    const forwarded = options.trustProxy
      ? forwardedClient(c.req.header('x-forwarded-for'), options.hops)
      : undefined;
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    return clientBucket(forwarded ?? incoming?.socket.remoteAddress ?? 'unknown');
  };
}

/** Workers: `CF-Connecting-IP`, which Cloudflare sets and a client cannot forge, bucketed. */
export const workerClientIp = (c: Context): string =>
  clientBucket(c.req.header('cf-connecting-ip') ?? 'unknown');
