import { createHash } from 'node:crypto';
import type { Executor } from '../../db/engine.js';
import { randomToken } from '../../lib/ids.js';
import type { CheckoutRequest, CheckoutStatus, ConfirmOutcome, ConfirmRequest, PaymentProvider } from '../provider.js';

/**
 * Amounts the simulated provider declines, to exercise the refusal path:
 * those whose cents are 13 (15.13, 100.13, …). Every other amount is paid.
 */
export const simulatedDecline = (amountCents: number): boolean => amountCents % 100 === 13;

/**
 * The built-in provider: no money moves. A confirmation succeeds (unless
 * simulatedDecline) with a charge id derived from the checkout, so confirming
 * twice gives the same charge. It keeps no state of its own: its view of a
 * checkout is the payment request's row.
 */
export class SimulatedPaymentProvider implements PaymentProvider {
  readonly name = 'simulator';

  constructor(private readonly db: Executor) {}

  async createCheckout(req: CheckoutRequest): Promise<{ checkoutId: string }> {
    void req;
    return { checkoutId: `sim_${randomToken(12)}` };
  }

  async confirm(req: ConfirmRequest): Promise<ConfirmOutcome> {
    if (simulatedDecline(req.amountCents)) return { ok: false, reason: 'card_declined' };
    return { ok: true, providerRef: `simch_${createHash('sha256').update(req.checkoutId).digest('hex').slice(0, 24)}` };
  }

  async status(checkoutId: string): Promise<CheckoutStatus> {
    const row = await this.db
      .selectFrom('payment_requests')
      .select('status')
      .where('provider', '=', this.name)
      .where('checkout_id', '=', checkoutId)
      .executeTakeFirst();
    return row ? row.status : 'unknown';
  }
}
