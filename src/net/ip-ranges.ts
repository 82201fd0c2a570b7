// Which IP addresses a URL given through the API (an RPC URL, a webhook) may not reach: the ranges, by rule, and the
// IPv4 address an IPv6 one carries.
import { BlockList, isIPv4, isIPv6 } from 'node:net';

export interface AddressRule {
  /** What the address is, for the refusal text: "a loopback address (127.0.0.0/8, ::1)". */
  rule: string;
  /** Refused even with RPC_BLOCK_PRIVATE_IPS off (the reference always refuses these too). */
  always: boolean;
}

type Subnet = [address: string, prefix: number];

function ranges(rule: string, always: boolean, v4: Subnet[], v6: Subnet[]): AddressRule & { list: BlockList } {
  const list = new BlockList();
  for (const [address, prefix] of v4) list.addSubnet(address, prefix, 'ipv4');
  for (const [address, prefix] of v6) list.addSubnet(address, prefix, 'ipv6');
  return { rule, always, list };
}

// First match wins: the metadata address is named before the link-local range that holds it.
const RULES = [
  ranges('an unspecified address (0.0.0.0/8, ::)', true, [['0.0.0.0', 8]], [['::', 128]]),
  ranges(
    'a cloud metadata address (169.254.169.254, fd00:ec2::254)',
    true,
    [['169.254.169.254', 32]],
    [['fd00:ec2::254', 128]],
  ),
  ranges('a loopback address (127.0.0.0/8, ::1)', false, [['127.0.0.0', 8]], [['::1', 128]]),
  ranges(
    'a private address (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10)',
    false,
    [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
      ['100.64.0.0', 10],
    ],
    [],
  ),
  ranges('a unique-local address (fc00::/7)', false, [], [['fc00::', 7]]),
  ranges('a link-local address (169.254.0.0/16, fe80::/10)', false, [['169.254.0.0', 16]], [['fe80::', 10]]),
  ranges(
    'a reserved, benchmark or multicast address',
    false,
    [
      ['192.0.0.0', 24],
      ['198.18.0.0', 15],
      ['224.0.0.0', 4],
      ['240.0.0.0', 4],
    ],
    [
      ['ff00::', 8],
      ['100::', 64],
    ],
  ),
];

/** The eight 16-bit groups of an IPv6 address ("::ffff:127.0.0.1" included); null when it is not one. */
function ipv6Groups(ip: string): number[] | null {
  let address = ip.replace(/%.*$/, '');
  if (!isIPv6(address)) return null;
  const dotted = /:(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    address = `${address.slice(0, dotted.index + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = address.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const quad = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/**
 * The IPv4 address an IPv6 address stands for: IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d),
 * NAT64 (64:ff9b::/96) and 6to4 (2002::/16). A connection to these reaches that IPv4 address.
 */
function embeddedIpv4(ip: string): string | null {
  const g = ipv6Groups(ip);
  if (!g) return null;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return quad(g[6]!, g[7]!);
  if (zeros(0, 6) && (g[6]! !== 0 || g[7]! > 1)) return quad(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return quad(g[6]!, g[7]!);
  if (g[0] === 0x2002) return quad(g[1]!, g[2]!);
  return null;
}

/** The rule an address breaks, or null; with `blockPrivate` off only the `always` rules apply. */
export function addressRule(ip: string, blockPrivate: boolean): AddressRule | null {
  const address = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const v4 = isIPv4(address) ? address : embeddedIpv4(address);
  for (const { rule, always, list } of RULES) {
    if (!always && !blockPrivate) continue;
    if ((v4 && list.check(v4, 'ipv4')) || (isIPv6(address) && list.check(address, 'ipv6'))) return { rule, always };
  }
  return null;
}
