/**
 * The bucket a client address counts in for per-address limits. Addresses are compared by
 * value, not by spelling: IPv4 (also written IPv4-mapped, `::ffff:a.b.c.d`) in dotted decimal,
 * IPv6 by its /64 prefix in lower-case text, since one customer line is handed a whole /64 and
 * can walk through it. Anything that is not an address counts in one shared bucket.
 */
export const UNPARSABLE_ADDRESS_BUCKET = 'unparsable';

export function addressBucket(address: string): string {
  const text = address.trim();
  const ipv4 = parseIpv4(text);
  if (ipv4) return ipv4.join('.');
  const groups = parseIpv6(text);
  if (!groups) return UNPARSABLE_ADDRESS_BUCKET;
  if (isIpv4Mapped(groups)) return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

// Leading zeros are refused: some parsers read them as octal, so their meaning is not certain.
const IPV4_OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${IPV4_OCTET}\\.${IPV4_OCTET}\\.${IPV4_OCTET}\\.${IPV4_OCTET}$`);
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

function parseIpv4(text: string): number[] | undefined {
  const match = IPV4.exec(text);
  return match ? match.slice(1).map(Number) : undefined;
}

/** The eight 16-bit groups of an IPv6 address; a zone id (`%eth0`) is dropped. */
function parseIpv6(text: string): number[] | undefined {
  const [address = ''] = text.split('%', 1);
  if (!address.includes(':')) return undefined;
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  // A dotted IPv4 ending is allowed only at the very end of the address.
  const head = parseGroups(halves[0]!, halves.length === 1);
  const tail = halves.length === 2 ? parseGroups(halves[1]!, true) : [];
  if (!head || !tail) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const missing = 8 - head.length - tail.length;
  return missing >= 1 ? [...head, ...new Array<number>(missing).fill(0), ...tail] : undefined;
}

/** Colon-separated hex groups; when `endsAddress`, the last may be dotted IPv4, worth two groups. */
function parseGroups(part: string, endsAddress: boolean): number[] | undefined {
  if (part === '') return [];
  const pieces = part.split(':');
  const groups: number[] = [];
  for (const [index, piece] of pieces.entries()) {
    if (HEX_GROUP.test(piece)) {
      groups.push(parseInt(piece, 16));
      continue;
    }
    const ipv4 = endsAddress && index === pieces.length - 1 ? parseIpv4(piece) : undefined;
    if (!ipv4) return undefined;
    groups.push((ipv4[0]! << 8) | ipv4[1]!, (ipv4[2]! << 8) | ipv4[3]!);
  }
  return groups;
}

function isIpv4Mapped(groups: number[]): boolean {
  return groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
}
