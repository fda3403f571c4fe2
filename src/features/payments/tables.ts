import type { Generated } from 'kysely';

/** A payment link sent by SMS (POST /paymentrequest/send) and paid at /pay/{token}. */
export interface PaymentRequestsTable {
  id: Generated<number>;
  /** The UUID returned to the client. */
  request_id: string;
  /** The short unguessable id in the link (/pay/{token}), short enough for the SMS. */
  token: string;
  account_id: number;
  /** The SMS that carried the link. */
  message_id: number;
  reference: string;
  country_code: string;
  /** Full number with country code, digits only. */
  number: string;
  /** The concept shown on the page (the spec's `template`, at most 40). */
  template: string;
  message: string;
  /** Integer cents; null lets the payer enter the amount. */
  amount_cents: number | null;
  currency: string;
  name: string | null;
  email: string | null;
  provider: string;
  checkout_id: string;
  /** pending → paid, once (one conditional update). */
  status: Generated<'pending' | 'paid'>;
  paid_amount_cents: number | null;
  provider_ref: string | null;
  created_at: number;
  paid_at: number | null;
  /** The provider's hosted page (Stripe Checkout's session url); the short link redirects there. */
  checkout_url: string | null;
  /** When the provider's session ended unpaid (expired or cancelled), and why. */
  checkout_closed_at: number | null;
  checkout_closed_reason: string | null;
}

export interface PaymentTables {
  payment_requests: PaymentRequestsTable;
}

declare module '../../db/schema.js' {
  interface Database extends PaymentTables {}
}
