import { BlockList, isIP } from 'node:net';

/** Why an address is not a public one. */
export type AddressKind = 'loopback' | 'private' | 'link-local' | 'metadata' | 'reserved';

// Cloud instance-metadata services, named on their own so a refusal says what it protected.
const metadata = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '192.0.0.192', 'fd00:ec2::254']);

const ranges: [AddressKind, 'ipv4' | 'ipv6', string, number][] = [
  ['loopback', 'ipv4', '127.0.0.0', 8],
  ['loopback', 'ipv6', '::1', 128],
  ['private', 'ipv4', '10.0.0.0', 8],
  ['private', 'ipv4', '172.16.0.0', 12],
  ['private', 'ipv4', '192.168.0.0', 16],
  ['private', 'ipv4', '100.64.0.0', 10], // carrier-grade NAT, also the home of some metadata services
  ['private', 'ipv6', 'fc00::', 7], // unique local
  ['private', 'ipv6', 'fec0::', 10], // site-local (deprecated, still routed inside some networks)
  ['link-local', 'ipv4', '169.254.0.0', 16],
  ['link-local', 'ipv6', 'fe80::', 10],
  ['reserved', 'ipv4', '0.0.0.0', 8], // "this network": 0.0.0.0 reaches the machine itself
  ['reserved', 'ipv4', '192.0.0.0', 24],
  ['reserved', 'ipv4', '192.0.2.0', 24],
  ['reserved', 'ipv4', '198.18.0.0', 15],
  ['reserved', 'ipv4', '198.51.100.0', 24],
  ['reserved', 'ipv4', '203.0.113.0', 24],
  ['reserved', 'ipv4', '224.0.0.0', 4], // multicast
  ['reserved', 'ipv4', '240.0.0.0', 4], // reserved, and 255.255.255.255
  ['reserved', 'ipv6', '::', 96], // unspecified and IPv4-compatible
  ['reserved', 'ipv6', '100::', 64], // discard
  ['reserved', 'ipv6', '64:ff9b:1::', 48], // NAT64 local use (RFC 8215): an IPv4 address of this network behind it
  ['reserved', 'ipv6', '2001::', 23], // IETF protocol assignments (Teredo among them)
  ['reserved', 'ipv6', '2001:db8::', 32],
  ['reserved', 'ipv6', 'ff00::', 8], // multicast
];

const lists = new Map<AddressKind, BlockList>();
for (const [kind, family, network, prefix] of ranges) {
  const list = lists.get(kind) ?? new BlockList();
  list.addSubnet(network, prefix, family);
  lists.set(kind, list);
}

/** The 32 bits of an IPv4 address as dotted decimal. */
const dotted = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;

/** The eight 16-bit groups of an IPv6 address. */
function groupsOf(address: string): number[] {
  let text = address.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1].split('.').map(Number);
    text = `${text.slice(0, -v4[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const front = part(head);
  const back = part(tail);
  return tail === undefined ? front : [...front, ...new Array(8 - front.length - back.length).fill(0), ...back];
}

/**
 * The IPv4 address an IPv6 one stands for, where the IPv6 address carries it: IPv4-mapped
 * (::ffff:a.b.c.d, what a dual-stack socket connects to as IPv4), SIIT's IPv4-translated
 * (::ffff:0:a.b.c.d), NAT64 (64:ff9b::/96, and 64:ff9b:1::/96 of the local-use block; its other
 * prefix lengths are refused whole as reserved) and 6to4 (2002::/16). A refusal must not be dodged by
 * writing 127.0.0.1 as ::ffff:7f00:1.
 */
export function embeddedIpv4(address: string): string | undefined {
  if (isIP(address) !== 6) return undefined;
  const g = groupsOf(address);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return dotted(g[6], g[7]);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return dotted(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && (g[2] === 0 || g[2] === 1) && zeros(3, 6)) return dotted(g[6], g[7]);
  if (g[0] === 0x2002) return dotted(g[1], g[2]);
  return undefined;
}

/** The address to judge: an IPv4 address carried inside an IPv6 one is judged as IPv4. */
export function canonicalAddress(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  return embeddedIpv4(bare) ?? bare.toLowerCase();
}

/** What kind of non-public address this is, or undefined for a public one. */
export function addressKind(address: string): AddressKind | undefined {
  const ip = canonicalAddress(address);
  const family = isIP(ip) === 4 ? 'ipv4' : isIP(ip) === 6 ? 'ipv6' : undefined;
  if (!family) return 'reserved';
  if (metadata.has(ip)) return 'metadata';
  for (const [kind, list] of lists) if (list.check(ip, family)) return kind;
  return undefined;
}

/** A parsed `--allow-receivers` entry: an address or CIDR block. */
export interface AllowedRange {
  text: string;
  network: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** Parses one CIDR (`10.0.0.0/8`, `fd00::/8`) or single address; throws a message saying what is wrong. */
export function parseRange(text: string): AllowedRange {
  const trimmed = text.trim();
  const [network, prefixText, extra] = trimmed.split('/');
  const ip = network?.replace(/^\[|\]$/g, '') ?? '';
  const version = isIP(ip);
  if (!version || extra !== undefined)
    throw new Error(`${JSON.stringify(text)} is not an IP address or CIDR block (e.g. 10.0.0.0/8 or fd00::/8)`);
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!/^\d+$/.test(prefixText ?? String(max)) || prefix > max)
    throw new Error(`${JSON.stringify(text)} has a prefix length outside 0–${max}`);
  return { text: trimmed, network: ip, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** An allow list of CIDR blocks, matching IPv4-mapped IPv6 addresses as their IPv4 selves. */
export class AllowList {
  private readonly list = new BlockList();
  readonly ranges: readonly AllowedRange[];

  constructor(entries: readonly string[]) {
    this.ranges = entries.filter((e) => e.trim()).map(parseRange);
    for (const r of this.ranges) this.list.addSubnet(r.network, r.prefix, r.family);
  }

  /** True when the address (or the IPv4 address an IPv6 one carries) is within a listed block. */
  has(address: string): boolean {
    const bare = address.replace(/^\[|\]$/g, '');
    const ip = canonicalAddress(bare);
    return this.matches(ip) || (ip !== bare && this.matches(bare));
  }

  private matches(ip: string): boolean {
    const version = isIP(ip);
    return version !== 0 && this.list.check(ip, version === 4 ? 'ipv4' : 'ipv6');
  }
}
