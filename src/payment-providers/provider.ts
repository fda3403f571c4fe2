import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * A payment provider: where the payer of a payment request actually pays.
 * The core keeps the request's state (pending → paid, once); a provider only
 * holds the checkout and moves the money. The simulator is the default; a
 * real provider (a card processor's API) is another implementation.
 */
export interface CheckoutRequest {
  /** Our request_id: providers use it as the idempotency key and for reconciliation. */
  requestId: string;
  /** Integer cents; null when the payer chooses the amount on the page. */
  amountCents: number | null;
  currency: string;
  concept: string;
  /** Where a hosted payment page sends the payer back (our /pay/{token} page). */
  returnUrl?: string;
}

export interface ConfirmRequest {
  checkoutId: string;
  requestId: string;
  amountCents: number;
  currency: string;
}

/** A refusal (card declined, …) leaves the request pending: the payer may try again. */
export type ConfirmOutcome = { ok: true; providerRef: string } | { ok: false; reason: string };

export type CheckoutStatus = 'pending' | 'paid' | 'unknown';

export interface PaymentProvider {
  readonly name: string;
  /** Opens a checkout for a new request; returns the provider's id for it. */
  createCheckout(req: CheckoutRequest): Promise<{ checkoutId: string; url?: string }>;
  /**
   * Charges the payer. Must be idempotent per checkout: two confirmations of
   * one checkout (two tabs, a double click) charge once and return the same
   * providerRef, because the core may call it again before it records the result.
   */
  confirm(req: ConfirmRequest): Promise<ConfirmOutcome>;
  /** The provider's view of a checkout, for reconciliation. */
  status(checkoutId: string): Promise<CheckoutStatus>;
}

/** A provider's checkout that was paid (its webhook said so). */
export interface PaidCheckout {
  provider: string;
  checkoutId: string;
  /** What the payer paid, integer cents; null when the provider did not say (the request's own amount then). */
  amountCents: number | null;
  /** The provider's reference of the payment. */
  providerRef: string;
}

/** A provider's checkout that closed unpaid: `reason` is expired, payment_failed… */
export interface ClosedCheckout {
  provider: string;
  checkoutId: string;
  reason: string;
}

/**
 * What a provider reports of its checkouts, each in the transaction that
 * records the report: implemented by the payment requests' feature
 * (features/payments/paid.ts), which its routes hand to the provider's
 * webhook route. A checkout that names no request changes nothing.
 */
export interface PaymentSink {
  /** The request becomes paid, once (with its `confirmation` event). */
  paid(trx: Transaction<Database>, checkout: PaidCheckout): Promise<void>;
  /** The request stays pending (the payer may pay anew) with its checkout closed, once. */
  closed(trx: Transaction<Database>, checkout: ClosedCheckout): Promise<void>;
}
