import { ipAllowed, parseAllowList, type IpRange } from '../lib/ip-ranges.js';

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
  private readonly parsed = new Map<string, IpRange[]>();

  get size(): number {
    return this.parsed.size;
  }

  /** The ranges of a stored allow-list (`accounts.allow_ips`, a JSON array of CIDRs). */
  ranges(stored: string): IpRange[] {
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
