import type { Channel } from '../channels.js';
import type { Executor } from '../db/engine.js';
import { routeRefusal } from './kinds.js';
import { listCarriers, listRoutes, SIMULATOR } from './store.js';

/**
 * The routes that name a connector which is off, each as one line
 * (`sms "52" → acme (disabled)`): the simulator while the simulators are off
 * (the router leaves it out of every route), a connector the operator
 * disabled, or a name no connector has. A bound chat-app instance is never off here.
 * Also a connector whose kind cannot carry the route's channel (RCS on SMPP: a
 * route `routes add` refuses now, kept from before), which still carries it.
 */
export async function routesNamingOffCarriers(db: Executor, simulatorsOn: boolean): Promise<string[]> {
  const [carriers, routes] = await Promise.all([listCarriers(db), listRoutes(db)]);
  const byName = new Map(carriers.map((c) => [c.name, c]));
  const why = (name: string, channel: Channel): string | null => {
    if (name === SIMULATOR && !simulatorsOn) return 'SIMULATORS is off';
    if (name.startsWith('instance:')) return null;
    const carrier = byName.get(name);
    if (carrier === undefined) return 'no such carrier';
    if (carrier.enabled !== 1) return 'disabled';
    return routeRefusal(carrier.type, channel) === null ? null : `${carrier.type} cannot carry ${channel}`;
  };
  return routes.flatMap((r) => {
    const off = (JSON.parse(r.carriers) as string[]).flatMap((c) => {
      const reason = why(c, r.channel as Channel);
      return reason ? [`${c} (${reason})`] : [];
    });
    const scope = r.account_id === 0 ? '' : ` for account ${r.account_id}`;
    return off.length ? [`${r.channel} ${JSON.stringify(r.prefix)}${scope} → ${off.join(', ')}`] : [];
  });
}
