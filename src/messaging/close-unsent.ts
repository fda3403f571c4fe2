import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { AppContext } from '../context.js';
import { adjustCredits } from '../accounts/store.js';
import { queueReceipts } from './customer-notices.js';
import { recordEvents } from '../webhooks/index.js';
import { confirmationPayload } from './delivery.js';
import { OPTOUT_STATUS } from './optouts.js';
import { countMessages, pipelineMetrics } from './metrics.js';
import type { Channel } from './types.js';
import { EXPIRED_ERROR, EXPIRED_STATUS } from './ports.js';

/** Delivery status code recorded for a message the carrier refused at submission: 4, rejected. */
export const REFUSED_STATUS = 4;

export { EXPIRED_ERROR, EXPIRED_STATUS };

/**
 * Closes messages that were never sent (stage 0 → 2) with a delivery status,
 * refunds their price (they were never sent) and writes their confirmation
 * events, in the caller's transaction. Returns the messages it closed.
 */
export async function closeUnsent(
  trx: Transaction<Database>,
  ids: number[],
  code: number,
  error: string,
  carrier: string | null,
  now: number,
): Promise<Array<{ channel: Channel }>> {
  if (ids.length === 0) return [];
  const updated = await trx
    .updateTable('messages')
    .set({
      stage: 2,
      status: code === REFUSED_STATUS || code === OPTOUT_STATUS ? 'refused' : 'undelivered',
      dlr_code: code,
      dlr_at: now,
      carrier,
      error,
      refunded: 1,
      // Out of the unsent sweep's index (it holds messages never sent that carry a claim).
      claimed_until: null,
    })
    .where('id', 'in', ids)
    .where('stage', '=', 0)
    .returning(['id', 'account_id', 'reference', 'number', 'price_units', 'extra_params', 'channel', 'meta'])
    .execute();
  await queueReceipts(
    trx,
    updated.map((r) => ({ ...r, code, at: now })),
  );
  // One ledger entry per account however many of its messages close here.
  const refunds = new Map<number, { units: number; messages: typeof updated }>();
  for (const r of updated) {
    const refund = refunds.get(r.account_id) ?? { units: 0, messages: [] };
    refund.units += Number(r.price_units);
    refund.messages.push(r);
    refunds.set(r.account_id, refund);
  }
  for (const [accountId, { units, messages }] of refunds)
    if (units > 0) await adjustCredits(trx, accountId, units, unsentRefund(messages, error));
  await recordEvents(
    trx,
    updated.map((r) => confirmationPayload(r, code, now)),
  );
  return updated;
}

/** The ledger's movement of a refund of messages never sent: the message's reference when one, else how many. */
const unsentRefund = (messages: Array<{ reference: string }>, error: string) => ({
  kind: 'refund' as const,
  actor: 'system',
  reason: messages.length === 1 ? error : `${messages.length} messages: ${error}`,
  reference: messages.length === 1 ? messages[0].reference : null,
});

/** Whether a message may still be handed over at `now` (no validity end, or one still ahead). */
export const validAt = (validUntil: number | string | null | undefined, now: number): boolean =>
  validUntil === null || validUntil === undefined || Number(validUntil) > now;

/**
 * Messages whose validity ended before they were handed over (a queue that
 * waited, a carrier down) are never sent: closed with status 3 (expired),
 * refunded, with their confirmation events and the receipts their SMPP
 * customers asked for. Returns the ids closed here.
 */
export async function closeExpired(
  ctx: Pick<AppContext, 'db' | 'worker' | 'metrics'>,
  candidates: Array<{ id: number; valid_until?: number | string | null }>,
  now: number,
): Promise<Set<number>> {
  const ids = candidates.filter((c) => !validAt(c.valid_until, now)).map((c) => c.id);
  if (ids.length === 0) return new Set();
  const closed = await ctx.db.kysely
    .transaction()
    .execute((trx) => closeUnsent(trx, ids, EXPIRED_STATUS, EXPIRED_ERROR, null, now));
  countMessages(pipelineMetrics(ctx.metrics.registry), closed, 'undelivered');
  ctx.worker.nudge(); // confirmation events and receipts to deliver
  return new Set(ids);
}
