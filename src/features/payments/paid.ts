import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { recordEvents } from '../../webhooks/index.js';
import { formatLocal } from '../../lib/time.js';
import type { PaymentSink } from '../../payment-providers/provider.js';
import { closeCheckout, findByCheckout, markPaid, type PaymentRequest } from './store.js';

/** What payment providers report (their webhooks), applied to the payment requests. */
export const paymentSink: PaymentSink = {
  async paid(trx, c) {
    const request = await findByCheckout(trx, c.provider, c.checkoutId);
    if (request) await recordPayment(trx, request.id, c.amountCents ?? request.amount_cents ?? 0, c.providerRef);
  },
  async closed(trx, c) {
    const request = await findByCheckout(trx, c.provider, c.checkoutId);
    if (request) await closeCheckout(trx, request.id, c.reason);
  },
};

/**
 * pending → paid (once) and, in the same transaction, the account's
 * `confirmation` event naming the SMS's reference with `payment_status=paid`.
 * Undefined when the request was already paid (then no event).
 */
export async function recordPayment(
  trx: Transaction<Database>,
  requestId: number,
  cents: number,
  providerRef: string,
): Promise<PaymentRequest | undefined> {
  const paid = await markPaid(trx, requestId, cents, providerRef);
  if (!paid) return undefined;
  await recordEvents(trx, [
    {
      accountId: paid.account_id,
      type: 'confirmation',
      reference: paid.reference,
      payload: {
        type: 'confirmation',
        reference: paid.reference,
        request_id: paid.request_id,
        payment_status: 'paid',
        paid_amount: String(cents / 100),
        currency: paid.currency,
        paid_date: formatLocal(paid.paid_at ?? Date.now()),
      },
    },
  ]);
  return paid;
}
