import { Gauge } from 'prom-client';
import type { AppContext } from '../../context.js';
import { failureCounts } from './store.js';
import { listBlocks } from './pumping.js';

/**
 * Wrong OTP codes per account, read from the database at scrape time (every
 * process reports the shared count): a sudden rise is brute force or pumping.
 * Registered once per process.
 */
export function otpMetrics(ctx: Pick<AppContext, 'db' | 'metrics'>): void {
  if (ctx.metrics.registry.getSingleMetric('mensajero_otp_verification_failures_total')) return;
  const failures = new Gauge({
    name: 'mensajero_otp_verification_failures_total',
    help: 'Wrong OTP codes typed, per account (all processes)',
    labelNames: ['account'],
    registers: [ctx.metrics.registry],
  });
  const blocks = new Gauge({
    name: 'mensajero_otp_pumping_blocks',
    help: 'Destination prefixes the OTP pumping guard blocks now, per scope (account: one family; deployment)',
    labelNames: ['scope'],
    registers: [ctx.metrics.registry],
  });
  ctx.metrics.beforeScrape.push(async () => {
    const inForce = await listBlocks(ctx.db.kysely);
    for (const scope of ['account', 'deployment'] as const)
      blocks.set({ scope }, inForce.filter((b) => b.scope === scope).length);
    failures.reset();
    for (const row of await failureCounts(ctx.db.kysely))
      failures.set({ account: String(row.account_id) }, row.failures);
  });
}
