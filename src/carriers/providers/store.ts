import type { BaseContext } from '../../context.js';
import { reserveAttempt } from '../../auth/attempts.js';

const HOUR_MS = 3_600_000;
/** Distinct refusals itemised per address and hour; past it they are counted together (OVERFLOW). */
export const REJECTIONS_ITEMISED_PER_ADDRESS = 20;
export const OVERFLOW = { carrier: '*', reason: 'more refusals from this address (not itemised)' };

/**
 * A refused webhook, kept for `carriers rejections` (never its body: it may
 * carry customer data or a forged secret). Counted, not logged one row each:
 * one row per address, source, reason and hour; an address gets at most
 * REJECTIONS_ITEMISED_PER_ADDRESS such refusals itemised an hour (made-up
 * connector names would each be a row), the rest go to its OVERFLOW row.
 * Rows older than REJECTIONS_KEEP_DAYS are pruned (housekeeping).
 */
export async function recordRejection(
  ctx: Pick<BaseContext, 'db' | 'log'>,
  carrier: string,
  reason: string,
  remoteAddress: string,
): Promise<void> {
  const now = Date.now();
  const perAddress = { key: `refusals:${remoteAddress}`, limit: REJECTIONS_ITEMISED_PER_ADDRESS, windowMs: HOUR_MS };
  const itemised = await reserveAttempt(ctx.db.kysely, perAddress, now);
  if (itemised) ctx.log.warn({ carrier, reason, remote: remoteAddress }, 'provider webhook refused');
  const row = itemised ? { carrier: carrier.slice(0, 60), reason: reason.slice(0, 300) } : OVERFLOW;
  const hour = now - (now % HOUR_MS);
  await ctx.db.kysely
    .insertInto('provider_rejections')
    .values({ ...row, remote_address: remoteAddress, hour, attempts: 1, received_at: now, last_at: now })
    .onConflict((oc) =>
      oc
        .columns(['remote_address', 'hour', 'carrier', 'reason'])
        .doUpdateSet((eb) => ({ attempts: eb('provider_rejections.attempts', '+', 1), last_at: now })),
    )
    .execute();
}

/** Refusals whose last one is older than REJECTIONS_KEEP_DAYS. */
export async function pruneRejections(ctx: Pick<BaseContext, 'db' | 'config'>, now = Date.now()): Promise<number> {
  const cutoff = now - ctx.config.REJECTIONS_KEEP_DAYS * 86_400_000;
  const result = await ctx.db.kysely.deleteFrom('provider_rejections').where('last_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
