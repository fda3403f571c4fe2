import { CHANNELS } from '../channels.js';
import type { CarrierDriver, FailedAttempt, SubmitCost, OutboundMessage, SubmitOutcome } from '../messaging/ports.js';
import type { CarrierManager } from './manager.js';
import { matchRoute } from './routing.js';
import { RoutePlanner, type Candidate } from './strategies.js';

/** Delivery status for a destination no route covers: 12, country not contracted (refunded). */
export const NO_ROUTE_STATUS = 12;

/**
 * The driver in front of every channel: each message goes to the first
 * connector of its route (channel + longest destination prefix, an account's
 * own routes first) in the order of the route's strategy (strategies.ts)
 * that is up; a connector that is down or refuses transiently hands the
 * message to the next one (failover). A connector bound only in another
 * process is not down: the message is answered `elsewhere`, and the
 * dispatch leaves it to a process that holds a bind. Each outcome
 * says why its connector was chosen (`route`). When
 * every connector of the route failed, the message goes back to the
 * dispatcher as a transient failure, to be retried. Pacing is each
 * connector's own (throughput cap, window), so the router itself has none.
 */
export class RouterDriver implements CarrierDriver {
  readonly name = 'router';
  readonly channels = CHANNELS;
  readonly messagesPerSecond = 1_000_000_000;
  readonly maxBatch = 1000;

  private readonly planner = new RoutePlanner();

  constructor(private readonly manager: CarrierManager) {}

  /** The cost in force for this connector and number, as recorded with the hand-off (none when it has no cost for it). */
  costOf(name: string, number: string): { cost?: SubmitCost } {
    const hit = this.manager.costs.match(name, number);
    return hit ? { cost: { prefix: hit.prefix, amount: hit.value } } : {};
  }

  /** The connectors to try for a message, in order, with why; null: no route. (Public for bench/prices.ts.) */
  candidates(m: OutboundMessage): Candidate[] | null {
    // A chat-app instance bound to its own Cloud API number wins over the routes (no failover: it is that number or none).
    const instance = this.manager.instanceFor(m);
    if (instance) return [{ name: instance, reason: 'instance' }];
    const route = matchRoute(this.manager.routes, m.channel, m.number, m.accountId);
    return route && this.planner.plan(route, m.number, this.manager.health);
  }

  async submit(batch: OutboundMessage[]): Promise<SubmitOutcome[]> {
    await this.manager.ready();
    const outcomes: SubmitOutcome[] = new Array(batch.length);
    const lastError: string[] = new Array(batch.length).fill('');
    const reasons: string[] = new Array(batch.length).fill('');
    // The answers of the connectors that did not take each message, for the message trace.
    const failed: FailedAttempt[][] = batch.map(() => []);
    let pending: Array<{ index: number; candidates: Candidate[]; first?: string }> = [];
    batch.forEach((m, index) => {
      const candidates = this.candidates(m);
      if (candidates) pending.push({ index, candidates });
      else
        outcomes[index] = {
          ok: false,
          permanent: true,
          error: `no route for ${m.channel} to ${m.number.slice(0, 4)}…`,
          status: NO_ROUTE_STATUS,
          carrier: null,
        };
    });
    while (pending.length > 0) {
      const groups = new Map<string, number[]>();
      const next: typeof pending = [];
      for (const p of pending) {
        const candidate = p.candidates.shift();
        if (candidate === undefined) {
          outcomes[p.index] = {
            ok: false,
            permanent: false,
            error: lastError[p.index] || 'no connector of the route is up',
            carrier: null,
            ...(failed[p.index].length ? { failed: failed[p.index] } : {}),
          };
          continue;
        }
        const name = candidate.name;
        p.first ??= name;
        reasons[p.index] = p.first === name ? candidate.reason : `failover from ${p.first}`;
        const connector = this.manager.connector(name);
        if (!connector?.available && this.manager.boundElsewhere(name)) {
          // Not down: bound in another process, which takes it (the dispatch parks it for that connector).
          outcomes[p.index] = {
            ok: false,
            permanent: false,
            error: `${name} is bound in another process`,
            carrier: null,
            elsewhere: name,
            ...(failed[p.index].length ? { failed: failed[p.index] } : {}),
          };
          continue;
        }
        if (!connector?.available) {
          lastError[p.index] = `${name} is down`;
          next.push(p);
          continue;
        }
        let group = groups.get(name);
        if (!group) groups.set(name, (group = []));
        group.push(p.index);
        next.push(p);
      }
      await Promise.all(
        [...groups].map(async ([name, indexes]) => {
          let results: SubmitOutcome[];
          try {
            results = await this.manager.connector(name)!.submit(indexes.map((i) => batch[i]));
          } catch (err) {
            results = indexes.map(() => ({ ok: false, permanent: false, error: `${name}: ${(err as Error).message}` }));
          }
          indexes.forEach((i, k) => {
            const r = results[k];
            if (!r.ok) failed[i].push(...(r.failed ?? [attemptOf(name, r)]));
            else if (r.failed) failed[i].push(...r.failed);
            const trail = failed[i].length > 0 ? { failed: failed[i] } : {};
            if (!r.ok && r.elsewhere) {
              // Its connector left it for another holder of its binds (this process stops): parked, no failover.
              outcomes[i] = { ...r, carrier: null, ...trail };
            } else if (!r.ok && !r.permanent) {
              lastError[i] = r.error;
            } else
              outcomes[i] = r.ok
                ? { ...r, carrier: name, route: reasons[i], ...this.costOf(name, batch[i].number), ...trail }
                : { ...r, carrier: name, route: reasons[i], ...trail };
          });
        }),
      );
      // Down or refused for now: the next connector of the route.
      pending = next.filter((p) => outcomes[p.index] === undefined);
    }
    return outcomes;
  }
}

/** A connector's refusal as one failed attempt. */
function attemptOf(carrier: string, r: Extract<SubmitOutcome, { ok: false }>): FailedAttempt {
  return { carrier, at: Date.now(), ...(r.code === undefined ? {} : { code: r.code }), error: r.error };
}
