/**
 * The outbound address guard (SSRF): a webhook may only point at a public HTTPS endpoint.
 * Checked at create, update and send time. `allowInsecure` (WEBHOOK_ALLOW_INSECURE, for local
 * development and tests) lifts both rules.
 */

const BLOCKED_NAMES = new Set([
  'localhost',
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);
const BLOCKED_SUFFIXES = ['.localhost', '.local', '.internal', '.localdomain', '.home.arpa'];

/** IPv4 ranges that are not public: [first octets as a number, prefix length]. */
const PRIVATE_V4: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

const v4Number = (address: string): number =>
  address.split('.').reduce((n, part) => n * 256 + Number(part), 0);

function isPrivateV4(address: string): boolean {
  const n = v4Number(address);
  return PRIVATE_V4.some(([base, bits]) => {
    const size = 2 ** (32 - bits);
    return Math.floor(n / size) === Math.floor(v4Number(base) / size);
  });
}

/** Expands an IPv6 literal (no brackets) to 8 16-bit groups; null when it is not one. */
function v6Groups(address: string): number[] | null {
  let text = address.toLowerCase();
  const v4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4Tail) {
    const n = v4Number(v4Tail[1]!);
    text = text.slice(0, -v4Tail[1]!.length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail, extra] = text.split('::');
  if (extra !== undefined) return null;
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  const missing = 8 - front.length - back.length;
  if (tail === undefined ? missing !== 0 : missing < 0) return null;
  const groups = [...front, ...Array<number>(missing).fill(0), ...back];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

function isPrivateV6(groups: number[]): boolean {
  const [a = 0, b = 0] = groups;
  const allZeroUntil = (i: number) => groups.slice(0, i).every((g) => g === 0);
  if (allZeroUntil(8)) return true; // ::
  if (allZeroUntil(7) && groups[7] === 1) return true; // ::1
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses carry an IPv4 one.
  if (allZeroUntil(5) && (groups[5] === 0xffff || groups[5] === 0)) {
    const v4 = `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`;
    return isPrivateV4(v4);
  }
  if (a === 0x64 && b === 0xff9b) return true; // NAT64 reaches IPv4 space
  if ((a & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if ((a & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((a & 0xff00) === 0xff00) return true; // multicast
  if (a === 0x2001 && b === 0x0db8) return true; // documentation
  return false;
}

/**
 * Why `raw` may not be a webhook URL, or null when it may. The WHATWG URL parser already turns
 * decimal, hex and octal IPv4 forms (`https://2130706433/`, `0x7f.1`) into dotted quads, and
 * IPv6 literals into their canonical form, so each is checked in one shape.
 */
export function urlProblem(raw: string, allowInsecure: boolean): string | null {
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
  const host = url.hostname.toLowerCase().replace(/\.+$/, '');
  if (host.startsWith('[')) {
    const groups = v6Groups(host.slice(1, -1));
    if (!groups || isPrivateV6(groups)) return 'must not point at a private, loopback or link-local address';
    return null;
  }
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) {
    return isPrivateV4(host) ? 'must not point at a private, loopback or link-local address' : null;
  }
  if (!host.includes('.') || BLOCKED_NAMES.has(host) || BLOCKED_SUFFIXES.some((s) => host.endsWith(s))) {
    return 'must be a public host name';
  }
  return null;
}
