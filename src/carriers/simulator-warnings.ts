import type { AppContext } from '../context.js';
import type { Channel } from '../messaging/ports.js';
import { listCarriers, listRoutes, SIMULATOR } from './store.js';

/**
 * Start-up warnings when a simulator still runs beside a real carrier or
 * payment provider: the simulated replies route and simulated payments would
 * accept invented traffic in production. Real carriers are the enabled
 * connectors of the database (SMPP, …) and drivers put in front of a channel
 * (CARRIER_MODULE); a channel is still simulated while a route names the
 * simulator and no driver took the channel over.
 */
export async function simulatorWarnings(
  ctx: Pick<AppContext, 'db' | 'config' | 'carriers' | 'paymentProvider'>,
): Promise<string[]> {
  const [connectors, routes] = await Promise.all([listCarriers(ctx.db.kysely), listRoutes(ctx.db.kysely)]);
  const drivers = ctx.carriers.drivers();
  const real = [
    ...new Set([
      ...connectors.filter((c) => c.enabled === 1 && c.name !== SIMULATOR).map((c) => c.name),
      ...[...drivers.keys()].filter((n) => n !== SIMULATOR),
    ]),
  ];
  if (real.length === 0) return [];
  const overridden = new Set(
    [...drivers.entries()].filter(([name]) => name !== SIMULATOR).flatMap(([, channels]) => channels),
  );
  const simulated = [
    ...new Set(routes.filter((r) => (JSON.parse(r.carriers) as string[]).includes(SIMULATOR)).map((r) => r.channel)),
  ].filter((c) => !overridden.has(c as Channel));
  const warnings: string[] = [];
  if (ctx.config.SIMULATORS) {
    warnings.push(
      `SIMULATORS=true beside the real carrier ${real.join(', ')}: ` +
        (simulated.length > 0 ? `channels ${simulated.join(', ')} are still simulated (nothing is sent) and ` : '') +
        'POST /simulator/replies accepts invented replies. Set SIMULATORS=false in production.',
    );
  }
  if (ctx.paymentProvider.name === 'simulator') {
    warnings.push(
      `The simulated payment provider is active beside the real carrier ${real.join(', ')}: payment requests are marked paid without any money moving.`,
    );
  }
  return warnings;
}
