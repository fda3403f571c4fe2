import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/engine.js';
import type { PaymentRequestsTable } from './tables.js';
import type { PrunedMessages } from '../../feature.js';

export type PaymentRequest = Selectable<PaymentRequestsTable>;

export async function insertPaymentRequest(trx: Executor, row: Insertable<PaymentRequestsTable>): Promise<void> {
  await trx.insertInto('payment_requests').values(row).execute();
}

/** Link tokens are 12 base64url characters; anything else names no request (and never reaches a query). */
const TOKEN = /^[A-Za-z0-9_-]{12}$/;

export async function findByToken(db: Executor, token: string): Promise<PaymentRequest | undefined> {
  if (!TOKEN.test(token)) return undefined;
  return db.selectFrom('payment_requests').selectAll().where('token', '=', token).executeTakeFirst();
}

/** The account's request with that request_id; another account's is absent. */
export async function findByRequestId(
  db: Executor,
  accountId: number,
  requestId: string,
): Promise<PaymentRequest | undefined> {
  return db
    .selectFrom('payment_requests')
    .selectAll()
    .where('request_id', '=', requestId.toLowerCase())
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** The request whose checkout this provider opened. */
export async function findByCheckout(
  db: Executor,
  provider: string,
  checkoutId: string,
): Promise<PaymentRequest | undefined> {
  return db
    .selectFrom('payment_requests')
    .selectAll()
    .where('provider', '=', provider)
    .where('checkout_id', '=', checkoutId)
    .executeTakeFirst();
}

/** A pending request's checkout closed unpaid (expired, payment failed), once. */
export async function closeCheckout(db: Executor, id: number, reason: string): Promise<void> {
  await db
    .updateTable('payment_requests')
    .set({ checkout_closed_at: Date.now(), checkout_closed_reason: reason })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('checkout_closed_at', 'is', null)
    .execute();
}

/** pending → paid, once: the one conditional update of a payment. Undefined when it was already paid. */
export async function markPaid(
  db: Executor,
  id: number,
  paidAmountCents: number,
  providerRef: string,
): Promise<PaymentRequest | undefined> {
  return db
    .updateTable('payment_requests')
    .set({ status: 'paid', paid_at: Date.now(), paid_amount_cents: paidAmountCents, provider_ref: providerRef })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

/** Message retention: the requests whose SMS is pruned (the ledger keeps its own record of what was paid). */
export async function forgetPaymentRequests(trx: Executor, batch: PrunedMessages): Promise<number> {
  const r = await trx.deleteFrom('payment_requests').where('message_id', 'in', batch.ids).executeTakeFirst();
  return Number(r.numDeletedRows);
}
