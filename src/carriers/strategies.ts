import { formatCost } from './costs.js';
import type { RouteEntry } from './routing.js';

/** A connector to try for a message, and why it is tried (recorded on the message when it takes it). */
export interface Candidate {
  name: string;
  reason: string;
}

/** What the planner needs to know of the connectors now. */
export interface CarrierHealth {
  /** Up in this process (bound, enabled). */
  up(name: string): boolean;
  /** Demoted for its delivery rate (shared by every process, src/carriers/quality.ts). */
  demoted(name: string): boolean;
  /** Cost of one part to `number`, in ten-thousandths; null: none configured. */
  costFor(name: string, number: string): number | null;
}

/** While demoted, a connector takes one message in this many of its routes (the probe trickle). */
export const PROBE_EVERY = 10;

/**
 * Orders a route's connectors for one message by its strategy:
 * - priority: the route's order;
 * - least-cost: the cheapest that is up first (longest cost prefix; without a
 *   cost last; ties in the route's order);
 * - weighted: a smooth weighted round-robin among those up (deterministic:
 *   over any run of messages each gets its share to within one message),
 *   then the others in the route's order.
 * A demoted connector goes after the healthy ones, except one message in
 * PROBE_EVERY (a probe) while another connector of the route is healthy.
 * State (round-robin positions, probe counters) is this process's.
 */
export class RoutePlanner {
  private readonly rounds = new Map<string, Map<string, number>>();
  private readonly probes = new Map<string, number>();

  plan(route: RouteEntry, number: string, health: CarrierHealth): Candidate[] {
    const ordered = this.order(route, number, health);
    const isHealthy = (c: Candidate) => health.up(c.name) && !health.demoted(c.name);
    if (!ordered.some(isHealthy)) return ordered;
    const demoted = ordered.filter((c) => health.demoted(c.name));
    const rest = ordered.filter((c) => !health.demoted(c.name));
    for (const d of demoted) {
      if (!health.up(d.name) || !this.probeTurn(d.name)) continue;
      return [{ name: d.name, reason: 'probe' }, ...rest, ...demoted.filter((x) => x !== d)];
    }
    return [...skipping(rest, ordered, demoted), ...demoted];
  }

  private order(route: RouteEntry, number: string, health: CarrierHealth): Candidate[] {
    const strategy = route.strategy ?? 'priority';
    if (strategy === 'least-cost') return leastCost(route.carriers, number, health);
    if (strategy === 'weighted') return this.weighted(route, health);
    return route.carriers.map((name) => ({ name, reason: 'priority' }));
  }

  private weighted(route: RouteEntry, health: CarrierHealth): Candidate[] {
    const weights = route.weights ?? route.carriers.map(() => 1);
    const eligible = route.carriers.filter((n, i) => weights[i] > 0 && health.up(n) && !health.demoted(n));
    const all = route.carriers.map((name) => ({ name, reason: 'weighted' }));
    if (eligible.length === 0) return all;
    const key = `${route.channel}|${route.prefix}|${route.accountId}|${route.carriers.join(',')}|${weights.join(',')}`;
    let current = this.rounds.get(key);
    if (!current) this.rounds.set(key, (current = new Map()));
    let total = 0;
    let pick = eligible[0];
    for (const name of eligible) {
      const weight = weights[route.carriers.indexOf(name)];
      total += weight;
      current.set(name, (current.get(name) ?? 0) + weight);
      if (current.get(name)! > current.get(pick)!) pick = name;
    }
    current.set(pick, current.get(pick)! - total);
    return [{ name: pick, reason: 'weighted' }, ...all.filter((c) => c.name !== pick)];
  }

  private probeTurn(name: string): boolean {
    const n = (this.probes.get(name) ?? 0) + 1;
    this.probes.set(name, n % PROBE_EVERY);
    return n % PROBE_EVERY === 0;
  }
}

/** The first healthy candidate says which demoted connectors it was chosen over. */
function skipping(rest: Candidate[], ordered: Candidate[], demoted: Candidate[]): Candidate[] {
  if (rest.length === 0) return rest;
  const passed = demoted.filter((d) => ordered.indexOf(d) < ordered.indexOf(rest[0])).map((d) => d.name);
  if (passed.length === 0) return rest;
  return [{ ...rest[0], reason: `${rest[0].reason}, skipping demoted ${passed.join(', ')}` }, ...rest.slice(1)];
}

function leastCost(carriers: string[], number: string, health: CarrierHealth): Candidate[] {
  const priced = carriers.map((name, index) => ({
    name,
    index,
    up: health.up(name),
    cost: health.costFor(name, number),
  }));
  priced.sort(
    (a, b) => Number(b.up) - Number(a.up) || (a.cost ?? Infinity) - (b.cost ?? Infinity) || a.index - b.index,
  );
  return priced.map((p) => ({
    name: p.name,
    reason: p.cost === null ? 'least-cost (no cost)' : `least-cost ${formatCost(p.cost)}`,
  }));
}
