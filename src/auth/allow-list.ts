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

/**
 * How many parsed allow-lists a process keeps. Each account's list is one
 * entry, and every change of it a new one: without a bound, an account
 * saving lists in a loop would grow the cache for as long as the process runs.
 */
export const ALLOW_LIST_CACHE_MAX = 1000;

/**
 * Parsed allow-lists by their stored JSON text, so a request does not parse
 * its account's list again. The least recently used leaves first (a Map keeps
 * insertion order: a hit moves its entry to the end).
 */
export class AllowListCache {
  private readonly parsed = new Map<string, ReturnType<typeof parseAllowList>>();

  get size(): number {
    return this.parsed.size;
  }

  /** The ranges of a stored allow-list (`accounts.allow_ips`, a JSON array of CIDRs). */
  ranges(stored: string): ReturnType<typeof parseAllowList> {
    const ranges = this.parsed.get(stored) ?? parseAllowList(JSON.parse(stored) as string[]);
    this.parsed.delete(stored);
    this.parsed.set(stored, ranges);
    if (this.parsed.size > ALLOW_LIST_CACHE_MAX) this.parsed.delete(this.parsed.keys().next().value!);
    return ranges;
  }

  /** Whether a stored allow-list (null: no restriction) admits `ip`. */
  admits(stored: string | null, ip: string): boolean {
    return !stored || ipAllowed(ip, this.ranges(stored));
  }
}

/** The process's parsed lists: pure memoisation of immutable values, bounded as above. */
const processLists = new AllowListCache();

/** Whether a stored allow-list (JSON array of CIDRs; null: no restriction) admits `ip`. */
export function allowListAdmits(allowIps: string | null, ip: string): boolean {
  return processLists.admits(allowIps, ip);
}
