import type { Executor } from '../db/engine.js';
import { listCarriers, listRoutes, SIMULATOR } from './store.js';

/**
 * The routes that name a connector which is off, each as one line
 * (`sms "52" → acme (disabled)`): the simulator while the simulators are off
 * (the router leaves it out of every route), a connector the operator
 * disabled, or a name no connector has. A bound chat-app instance is never off here.
 */
export async function routesNamingOffCarriers(db: Executor, simulatorsOn: boolean): Promise<string[]> {
  const [carriers, routes] = await Promise.all([listCarriers(db), listRoutes(db)]);
  const enabled = new Map(carriers.map((c) => [c.name, c.enabled === 1]));
  const why = (name: string): string | null => {
    if (name === SIMULATOR && !simulatorsOn) return 'SIMULATORS is off';
    if (name.startsWith('instance:')) return null;
    const on = enabled.get(name);
    return on === undefined ? 'no such carrier' : on ? null : 'disabled';
  };
  return routes.flatMap((r) => {
    const off = (JSON.parse(r.carriers) as string[]).flatMap((c) => {
      const reason = why(c);
      return reason ? [`${c} (${reason})`] : [];
    });
    const scope = r.account_id === 0 ? '' : ` for account ${r.account_id}`;
    return off.length ? [`${r.channel} ${JSON.stringify(r.prefix)}${scope} → ${off.join(', ')}`] : [];
  });
}
