import type { AppContext } from '../../context.js';
import { applyReceiptsFor } from '../early-receipts.js';
import { providerIds } from './receipts.js';

/**
 * Records the provider's id of each accepted message (its webhooks name it);
 * an id seen again is kept as first recorded. Statuses the provider posted
 * before this (it may call back before it answers the send) are applied now.
 */
export async function recordProviderIds(ctx: AppContext, carrier: string, ids: Array<{ carrierId: string; messageId: number }>): Promise<void> {
  if (ids.length === 0) return;
  const now = Date.now();
  await ctx.db.kysely
    .insertInto('provider_message_ids')
    .values(ids.map((i) => ({ carrier, carrier_id: i.carrierId, message_id: i.messageId, created_at: now })))
    .onConflict((oc) => oc.columns(['carrier', 'carrier_id']).doNothing())
    .execute();
  await applyReceiptsFor(ctx, providerIds, carrier, ids.map((i) => i.carrierId));
}

/** Provider id → our message id, for the ids this connector recorded. */
export async function findProviderIds(ctx: AppContext, carrier: string, carrierIds: string[]): Promise<Map<string, number>> {
  if (carrierIds.length === 0) return new Map();
  const rows = await ctx.db.kysely.selectFrom('provider_message_ids').select(['carrier_id', 'message_id']).where('carrier', '=', carrier).where('carrier_id', 'in', carrierIds).execute();
  return new Map(rows.map((r) => [r.carrier_id, Number(r.message_id)]));
}

/** A refused webhook, kept for `carriers rejections` (never its body: it may carry customer data or a forged secret). */
export async function recordRejection(ctx: AppContext, carrier: string, reason: string, remoteAddress: string): Promise<void> {
  ctx.log.warn({ carrier, reason, remote: remoteAddress }, 'provider webhook refused');
  await ctx.db.kysely.insertInto('provider_rejections').values({ carrier: carrier.slice(0, 60), reason: reason.slice(0, 300), remote_address: remoteAddress, received_at: Date.now() }).execute();
}
