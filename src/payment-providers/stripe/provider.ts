import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../../http/errors.js';
import type { Executor } from '../../db/engine.js';
import type { CheckoutRequest, CheckoutStatus, ConfirmOutcome, PaymentProvider } from '../provider.js';
import { STRIPE, type StripeSettings } from './settings.js';

/** Attempts of one API call when Stripe is down (5xx, network) or rate-limiting (429). */
const ATTEMPTS = 4;
const MAX_WAIT_MS = 2_000;

/**
 * Stripe Checkout over its documented REST API (https://docs.stripe.com/api/checkout/sessions/create):
 * form-encoded POST /v1/checkout/sessions with a Bearer secret key. Every
 * creation carries our request_id as Idempotency-Key
 * (https://docs.stripe.com/api/idempotent_requests), so retries after a
 * timeout or a 5xx never open a second session. The payer pays on Stripe's
 * hosted page; the signed webhook (webhook.ts) marks the request paid.
 */
export class StripeCheckoutProvider implements PaymentProvider {
  readonly name = STRIPE;

  constructor(
    private readonly settings: StripeSettings,
    private readonly db: Executor,
  ) {}

  async createCheckout(req: CheckoutRequest): Promise<{ checkoutId: string; url: string }> {
    // Checkout needs the amount up front: amount-less requests are refused before this (payment_14).
    if (req.amountCents === null) throw new ApiError(400, 'payment_14');
    const form = new URLSearchParams({
      mode: 'payment',
      'line_items[0][quantity]': '1',
      'line_items[0][price_data][currency]': req.currency.toLowerCase(),
      'line_items[0][price_data][unit_amount]': String(req.amountCents),
      'line_items[0][price_data][product_data][name]': req.concept,
      client_reference_id: req.requestId,
      'metadata[request_id]': req.requestId,
      'payment_intent_data[metadata][request_id]': req.requestId,
    });
    if (req.returnUrl) {
      form.set('success_url', req.returnUrl);
      form.set('cancel_url', req.returnUrl);
    }
    const session = await this.call('/v1/checkout/sessions', form, req.requestId);
    if (typeof session.id !== 'string' || typeof session.url !== 'string')
      throw new ApiError(502, 'payment_provider_01');
    return { checkoutId: session.id, url: session.url };
  }

  /** Payers pay on Stripe's page, never through our form. */
  async confirm(): Promise<ConfirmOutcome> {
    return { ok: false, reason: 'pay_on_provider_page' };
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

  private async call(path: string, form: URLSearchParams, idempotencyKey: string): Promise<Record<string, unknown>> {
    for (let attempt = 1; ; attempt++) {
      let retryAfterMs = 200 * 2 ** (attempt - 1);
      try {
        const res = await fetch(`${this.settings.apiBase}${path}`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${this.settings.secretKey}`,
            'content-type': 'application/x-www-form-urlencoded',
            'idempotency-key': idempotencyKey,
          },
          body: form.toString(),
          signal: AbortSignal.timeout(10_000),
        });
        if (res.ok) return (await res.json()) as Record<string, unknown>;
        if (res.status !== 429 && res.status < 500) {
          // A 4xx other than 429 is our request or our key: retrying cannot help. Stripe's message names no secret.
          const body = (await res.json().catch(() => ({}))) as { error?: { code?: string } };
          throw new ApiError(502, 'payment_provider_01', undefined, {
            provider_error: body.error?.code ?? `http_${res.status}`,
          });
        }
        const header = Number(res.headers.get('retry-after'));
        if (Number.isFinite(header) && header > 0) retryAfterMs = header * 1000;
        await res.body?.cancel();
      } catch (err) {
        if (err instanceof ApiError) throw err;
      }
      if (attempt >= ATTEMPTS) throw new ApiError(503, 'payment_provider_02');
      await sleep(Math.min(retryAfterMs, MAX_WAIT_MS));
    }
  }
}
