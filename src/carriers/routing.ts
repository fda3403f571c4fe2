/** How a route shares its traffic among its connectors (CONTRACT: route strategies). */
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
 * prefix wins; the empty prefix matches every number. null: no route (the
 * message fails with status 12).
 */
export function matchRoute(
  routes: readonly RouteEntry[],
  channel: string,
  number: string,
  accountId: number | undefined,
): RouteEntry | null {
  for (const scope of accountId ? [accountId, 0] : [0]) {
    let best: RouteEntry | null = null;
    for (const r of routes) {
      if (r.channel !== channel || r.accountId !== scope || !number.startsWith(r.prefix)) continue;
      if (!best || r.prefix.length > best.prefix.length) best = r;
    }
    if (best) return best;
  }
  return null;
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
