import { PrefixTable } from '../lib/prefix-table.js';

/** How a route shares its traffic among its connectors (docs/operators/carriers-and-routes.md, "Route strategies and quality failover"). */
export const STRATEGIES = ['priority', 'least-cost', 'weighted'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** A route as the router holds it. `accountId` 0 serves every account. */
export interface RouteEntry {
  channel: string;
  prefix: string;
  accountId: number;
  carriers: string[];
  /** Default priority: today's ordered failover. */
  strategy?: Strategy;
  /** One per carrier, for `weighted`. */
  weights?: number[] | null;
}

/**
 * The route of one message. An account's own routes come first: when one of
 * them matches, the account's traffic stays on its connectors (pinned).
 * Otherwise the shared routes apply. Within each group the longest matching
 * prefix wins (the first listed among equal ones); the empty prefix matches
 * every number. null: no route (the message fails with status 12).
 * `routes` is treated as immutable: its index by prefix (built once per
 * array, see indexOf) makes a lookup cost the same with ten routes or ten thousand.
 */
export function matchRoute(
  routes: readonly RouteEntry[],
  channel: string,
  number: string,
  accountId: number | undefined,
): RouteEntry | null {
  const index = indexOf(routes);
  if (accountId) {
    const own = index.match(scopeOf(channel, accountId), number);
    if (own) return own.value;
  }
  return index.match(scopeOf(channel, 0), number)?.value ?? null;
}

const scopeOf = (channel: string, accountId: number) => `${channel}|${accountId}`;
const indexes = new WeakMap<readonly RouteEntry[], PrefixTable<RouteEntry>>();

/** The routes by channel, account and prefix; the first of equal ones wins, as in the list. */
function indexOf(routes: readonly RouteEntry[]): PrefixTable<RouteEntry> {
  let index = indexes.get(routes);
  if (index) return index;
  index = new PrefixTable<RouteEntry>();
  for (let i = routes.length - 1; i >= 0; i--)
    index.set(scopeOf(routes[i].channel, routes[i].accountId), routes[i].prefix, routes[i]);
  indexes.set(routes, index);
  return index;
}

/** The connectors of a message's route, in the route's order; null: no route. */
export function pickRoute(
  routes: readonly RouteEntry[],
  channel: string,
  number: string,
  accountId: number | undefined,
): string[] | null {
  return matchRoute(routes, channel, number, accountId)?.carriers ?? null;
}

/**
 * The routes without one connector (the simulator while SIMULATORS is off):
 * it leaves each route's list (with its weight), and a route left with no
 * connector is dropped, so a less specific route, or none, applies to its
 * messages (no route: refused with status 12 and refunded at once, never
 * left waiting for a connector that cannot come back).
 */
export function routesWithout(routes: readonly RouteEntry[], name: string): RouteEntry[] {
  return routes.flatMap((r) => {
    if (!r.carriers.includes(name)) return [r];
    const kept = r.carriers.flatMap((c, i) => (c === name ? [] : [i]));
    if (kept.length === 0) return [];
    return [
      {
        ...r,
        carriers: kept.map((i) => r.carriers[i]),
        ...(r.weights ? { weights: kept.map((i) => r.weights![i]) } : {}),
      },
    ];
  });
}
