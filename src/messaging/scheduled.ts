import { adjustCredits } from '../accounts/store.js';
import type { Db } from '../db/engine.js';

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

/** The error a message cancelled by its customer is closed with (the trace shows it). */
const CANCELLED_ERROR = 'cancelled by the customer';

/** Whether a message's reference is the message_id of its SMPP submit_multi (its first destination). */
function namesSubmitMulti(reference: string, meta: string | null): boolean {
  if (!meta?.includes('"message_id"')) return false;
  return (JSON.parse(meta) as { smpp?: { message_id?: string } }).smpp?.message_id === reference;
}

/**
 * Cancels a scheduled message not yet handed over and refunds its price, in
 * one transaction; false when it is not the account's, not scheduled, or
 * already on its way. A message is on its way from the moment a dispatcher
 * claims it (dispatch.ts writes its claim_token, then submits it; a claim
 * that ran out with its token set may have reached the carrier too). One
 * conditional update decides, on a message still at stage 0 without a
 * claim_token (never claimed, or released after a transient failure), and
 * the claim is conditional on stage 0: of a cancel and a claim racing for
 * the same message exactly one wins, and the refund follows only the rows
 * this update changed. The message_id of an SMPP submit_multi cancels every
 * destination of it still scheduled and not claimed.
 */
export async function cancelScheduled(db: Db, accountId: number, reference: string): Promise<boolean> {
  return db.kysely.transaction().execute(async (trx) => {
    const found = await trx
      .selectFrom('messages')
      .select(['campaign_id', 'meta'])
      .where('account_id', '=', accountId)
      .where('reference', '=', reference)
      .executeTakeFirst();
    if (!found) return false;
    const rows = await trx
      .updateTable('messages')
      .set({
        stage: 2,
        status: 'refused',
        error: CANCELLED_ERROR,
        dlr_at: Date.now(),
        refunded: 1,
        claimed_until: null,
      })
      .where('account_id', '=', accountId)
      .where((eb) =>
        namesSubmitMulti(reference, found.meta)
          ? eb('campaign_id', '=', found.campaign_id)
          : eb('reference', '=', reference),
      )
      .where('status', '=', 'scheduled')
      .where('stage', '=', 0)
      .where('claim_token', 'is', null)
      .returning(['price_units'])
      .execute();
    const units = rows.reduce((sum, r) => sum + Number(r.price_units), 0);
    if (units > 0)
      await adjustCredits(trx, accountId, units, {
        kind: 'refund',
        actor: 'account',
        reason: 'scheduled send cancelled',
        reference,
      });
    return rows.length > 0;
  });
}
