import type { AppContext } from '../context.js';
import { paymentProvider } from '../payments/registry.js';

/**
 * Start-up warnings for a deployment that mixes real and simulated peers: a
 * real carrier beside SIMULATORS=true (the simulator keeps the channels the
 * carrier does not take, and POST /simulator/replies accepts invented
 * replies), or the simulated payment provider beside a real carrier (payment
 * requests would be marked paid with no money moving).
 */
export function simulatorWarnings(ctx: AppContext): string[] {
  const drivers = ctx.carriers.drivers();
  const real = [...drivers.keys()].filter((name) => name !== 'simulator');
  if (real.length === 0) return [];
  const warnings: string[] = [];
  if (ctx.config.SIMULATORS) {
    const simulated = drivers.get('simulator') ?? [];
    warnings.push(
      `SIMULATORS=true beside the real carrier ${real.join(', ')}: ` +
        (simulated.length > 0 ? `channels ${simulated.join(', ')} are still simulated (nothing is sent) and ` : '') +
        'POST /simulator/replies accepts invented replies. Set SIMULATORS=false in production.',
    );
  }
  if (paymentProvider(ctx).name === 'simulator') {
    warnings.push(`The simulated payment provider is active beside the real carrier ${real.join(', ')}: payment requests are marked paid without any money moving.`);
  }
  return warnings;
}
