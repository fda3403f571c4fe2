import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may point. Only global unicast addresses are allowed:
 * ipaddr.js classifies every special range (loopback, private, link-local
 * with the 169.254.169.254 metadata service, CGNAT, multicast, unspecified,
 * broadcast, reserved, unique-local fc00::/7 with AWS's fd00:ec2::254,
 * NAT64, 6to4, Teredo…) as something other than 'unicast'. IPv4-mapped
 * IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it carries, and the
 * deprecated IPv4-compatible form ::a.b.c.d is refused outright.
 */
export function isForbiddenAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(withoutZone(address.replace(/^\[|\]$/g, '')));
  } catch {
    return true;
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return isForbiddenAddress(v6.toIPv4Address().toString());
    if (v6.match(IPV4_COMPATIBLE)) return true;
  }
  return parsed.range() !== 'unicast';
}

/** fe80::1%eth0 → fe80::1 (a scan: the `%.*$` pattern took quadratic time on many % before a line break). */
const withoutZone = (address: string) => (address.includes('%') ? address.slice(0, address.indexOf('%')) : address);

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96') as [ipaddr.IPv6, number];

/**
 * Errors of expected outcomes (a refused destination, a retry) are made
 * without a stack trace: capturing one per failed attempt is wasted work.
 */
export function withoutStack<T>(make: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

export class ForbiddenDestination extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`${host} resolves to ${address}, a private, local or reserved address`);
    this.name = 'ForbiddenDestination';
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a host name (or takes an IP literal) and refuses it when ANY of
 * its addresses is forbidden, unless `allowPrivate`. Returns the addresses,
 * the first one being the one to connect to.
 */
export async function resolveDestination(host: string, allowPrivate: boolean): Promise<ResolvedAddress[]> {
  const bare = host.replace(/^\[|\]$/g, '');
  const literal = literalAddress(bare);
  let addresses: ResolvedAddress[];
  if (literal) addresses = [literal];
  else
    addresses = (await lookup(bare, { all: true, verbatim: true })).map((a) => ({
      address: a.address,
      family: a.family === 6 ? 6 : 4,
    }));
  if (addresses.length === 0) throw new Error(`${host} has no address`);
  if (!allowPrivate) {
    const bad = addresses.find((a) => isForbiddenAddress(a.address));
    if (bad) throw withoutStack(() => new ForbiddenDestination(host, bad.address));
  }
  return addresses;
}

/** An IP literal's address (null for a name), parsed once per literal: every attempt to it checks it. */
const literals = new Map<string, ResolvedAddress | null>();
function literalAddress(bare: string): ResolvedAddress | null {
  let known = literals.get(bare);
  if (known === undefined) {
    known = ipaddr.isValid(bare) ? { address: bare, family: ipaddr.parse(bare).kind() === 'ipv6' ? 6 : 4 } : null;
    if (literals.size >= 1000) literals.delete(literals.keys().next().value!);
    literals.set(bare, known);
  }
  return known;
}
