import type { CarrierDriver, HandOffCost, OutboundMessage, SubmitOutcome } from './driver.js';
import type { CarrierManager } from './manager.js';
import { pickRoute } from './routing.js';

/** Delivery status for a destination no route covers: 12, country not contracted (refunded). */
export const NO_ROUTE_STATUS = 12;

/**
 * The driver in front of every channel: each message goes to the first
 * connector of its route (channel + longest destination prefix, an account's
 * own routes first) that is up in this process; a connector that is down or
 * refuses transiently hands the message to the next one (failover). When
 * every connector of the route failed, the message goes back to the
 * dispatcher as a transient failure, to be retried. Pacing is each
 * connector's own (throughput cap, window), so the router itself has none.
 */
export class RouterDriver implements CarrierDriver {
  readonly name = 'router';
  readonly channels = ['sms', 'rcs', 'chatapp', 'voice'] as const;
  readonly messagesPerSecond = 1_000_000_000;
  readonly maxBatch = 1000;

  constructor(private readonly manager: CarrierManager) {}

  /** The cost in force for this connector and number, as recorded with the hand-off (none when it has no cost for it). */
  private costOf(name: string, number: string): { cost?: HandOffCost } {
    const hit = this.manager.costs.match(name, number);
    return hit ? { cost: { prefix: hit.prefix, amount: hit.value } } : {};
  }

  async submit(batch: OutboundMessage[]): Promise<SubmitOutcome[]> {
    await this.manager.ready();
    const outcomes: SubmitOutcome[] = new Array(batch.length);
    const lastError: string[] = new Array(batch.length).fill('');
    let pending: Array<{ index: number; candidates: string[] }> = [];
    batch.forEach((m, index) => {
      // A chat-app instance bound to its own Cloud API number wins over the routes (no failover: it is that number or none).
      const instance = this.manager.instanceFor(m);
      const candidates = instance ? [instance] : pickRoute(this.manager.routes, m.channel, m.number, m.accountId);
      if (candidates) pending.push({ index, candidates: [...candidates] });
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
        const name = p.candidates.shift();
        if (name === undefined) {
          outcomes[p.index] = {
            ok: false,
            permanent: false,
            error: lastError[p.index] || 'no connector of the route is up',
          };
          continue;
        }
        const connector = this.manager.connector(name);
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
            if (!r.ok && !r.permanent) {
              lastError[i] = r.error;
            } else
              outcomes[i] = r.ok
                ? { ...r, carrier: name, ...this.costOf(name, batch[i].number) }
                : { ...r, carrier: name };
          });
        }),
      );
      // Down or refused for now: the next connector of the route.
      pending = next.filter((p) => outcomes[p.index] === undefined);
    }
    return outcomes;
  }
}
