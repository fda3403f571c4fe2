import { adjustCredits } from '../../accounts/store.js';
import type { Db } from '../../db/engine.js';

/** What a customer may learn of one of its account's messages (query_sm). */
export interface MessageState {
  status: string;
  dlrCode: number | null;
  doneAt: number | null;
}

/** One of the account's messages by its reference, or undefined. */
export async function messageState(db: Db, accountId: number, reference: string): Promise<MessageState | undefined> {
  const row = await db.kysely
    .selectFrom('messages')
    .select(['status', 'dlr_code', 'dlr_at'])
    .where('account_id', '=', accountId)
    .where('reference', '=', reference)
    .executeTakeFirst();
  return row && { status: row.status, dlrCode: row.dlr_code, doneAt: row.dlr_at === null ? null : Number(row.dlr_at) };
}

/**
 * Cancels a scheduled message not yet handed over and refunds its price, in
 * one transaction; false when it is not the account's, not scheduled, or
 * already on its way (the conditional update decides, so a cancel racing
 * the dispatch of the same message never both sends and refunds).
 */
export async function cancelScheduled(db: Db, accountId: number, reference: string): Promise<boolean> {
  return db.kysely.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('messages')
      .set({ stage: 2, status: 'refused', error: 'cancelled by the customer', dlr_at: Date.now() })
      .where('account_id', '=', accountId)
      .where('reference', '=', reference)
      .where('status', '=', 'scheduled')
      .where('stage', '=', 0)
      .returning(['price_units'])
      .executeTakeFirst();
    if (!row) return false;
    if (row.price_units > 0) await adjustCredits(trx, accountId, row.price_units);
    return true;
  });
}
