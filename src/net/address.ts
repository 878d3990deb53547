import ipaddr from 'ipaddr.js';

/**
 * Whether an IP address (no brackets) is on the public internet. Only ipaddr.js's `unicast`
 * range passes: private, loopback, link-local, CGNAT, multicast, documentation, benchmarking,
 * reserved, unspecified, broadcast, unique-local, site-local (fec0::/10), discard (100::/64),
 * Teredo (2001::/32), 6to4 (2002::/16) and NAT64 (64:ff9b::/96) are all refused: the tunnel
 * and translation prefixes carry an IPv4 address that could be a private one. IPv4-mapped and
 * IPv4-compatible forms are judged by the IPv4 address they embed.
 * @example isPublicAddress('93.184.216.34') // true
 * @example isPublicAddress('::ffff:127.0.0.1') // false
 */
export function isPublicAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    const words = v6.parts;
    // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (the deprecated "compatible" form) reach IPv4.
    if (words.slice(0, 5).every((w) => w === 0) && (words[5] === 0xffff || words[5] === 0)) {
      if (words[5] === 0 && words[6] === 0 && (words[7] ?? 0) <= 1) return false; // :: and ::1
      const v4 = new ipaddr.IPv4([words[6]! >> 8, words[6]! & 255, words[7]! >> 8, words[7]! & 255]);
      return v4.range() === 'unicast';
    }
    return v6.range() === 'unicast';
  }
  return parsed.range() === 'unicast';
}

/** True when `host` is an IPv4 or IPv6 literal (IPv6 with or without brackets). */
export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(host.replace(/^\[|\]$/g, '')) && /^[\d.]+$|:/.test(host);
}
