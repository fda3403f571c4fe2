import ipaddr from 'ipaddr.js';

/** Parses CIDRs (IPv4 and IPv6; a bare address is a /32 or /128). Throws on a malformed entry. */
export function parseAllowList(entries: string[]): Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> {
  return entries.map((entry) => {
    const text = entry.trim();
    if (text.includes('/')) return ipaddr.parseCIDR(text);
    const addr = ipaddr.parse(text);
    return [addr, addr.kind() === 'ipv4' ? 32 : 128];
  });
}

/** Validates and normalises CIDR text for storage; throws with the offending entry. */
export function normaliseAllowList(entries: string[]): string[] {
  return entries.map((e) => {
    try {
      const [addr, bits] = parseAllowList([e])[0];
      return `${addr.toString()}/${bits}`;
    } catch {
      throw new Error(`not an IP address or CIDR: ${e}`);
    }
  });
}

/** True when `ip` falls in one of the ranges; IPv4-mapped IPv6 addresses match IPv4 ranges. */
export function ipAllowed(ip: string, ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(ip);
  } catch {
    return false;
  }
  return ranges.some(([range, bits]) => addr.kind() === range.kind() && addr.match([range, bits] as any));
}

/** Parsed allow-lists by their stored JSON text; a bound, not a tuning knob (a miss only costs the parse). */
const parsedLists = new Map<string, ReturnType<typeof parseAllowList>>();
const MAX_PARSED_LISTS = 1000;

/** Whether a stored allow-list (JSON array of CIDRs; null: no restriction) admits `ip`. */
export function allowListAdmits(allowIps: string | null, ip: string): boolean {
  if (!allowIps) return true;
  let ranges = parsedLists.get(allowIps);
  if (!ranges) {
    ranges = parseAllowList(JSON.parse(allowIps) as string[]);
    if (parsedLists.size >= MAX_PARSED_LISTS) parsedLists.delete(parsedLists.keys().next().value!);
    parsedLists.set(allowIps, ranges);
  }
  return ipAllowed(ip, ranges);
}
