import ipaddr from 'ipaddr.js';

/** An address range: its first address and prefix length. */
export type IpRange = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses CIDRs (IPv4 and IPv6; a bare address is a /32 or /128). Throws on a malformed entry. */
export function parseAllowList(entries: string[]): IpRange[] {
  return entries.map((entry) => {
    const text = entry.trim();
    if (text.includes('/')) return ipaddr.parseCIDR(text);
    const addr = ipaddr.parse(text);
    return [addr, addr.kind() === 'ipv4' ? 32 : 128];
  });
}

/** True when `ip` falls in one of the ranges; IPv4-mapped IPv6 addresses match IPv4 ranges. */
export function ipAllowed(ip: string, ranges: IpRange[]): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(ip);
  } catch {
    return false;
  }
  return ranges.some(([range, bits]) => addr.kind() === range.kind() && addr.match([range, bits] as any));
}
