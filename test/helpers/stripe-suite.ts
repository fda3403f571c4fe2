/* Shared setup of the Stripe Checkout suites (src/payment-providers/stripe/stripe*.test.ts). */
import { afterAll, beforeAll } from 'vitest';
import { useConfiguredPaymentProvider } from '../../src/payment-providers/configured.js';
import { saveStripeSettings } from '../../src/payment-providers/stripe/settings.js';
import { startHarness, type EngineName, type Harness, type TestAccount } from './harness.js';
import { startTestStripe, type TestStripe } from './stripe.js';

/** A harness whose payment provider is Stripe, played by a test Stripe; started before the suite, stopped after it. */
export function stripeSuite(engine: EngineName) {
  const s = {} as { h: Harness; stripe: TestStripe };
  beforeAll(async () => {
    [s.h, s.stripe] = await Promise.all([
      startHarness(engine, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } }),
      startTestStripe(),
    ]);
    await saveStripeSettings(s.h.ctx, {
      apiBase: s.stripe.url,
      secretKey: s.stripe.secretKey,
      webhookSecret: s.stripe.webhookSecret,
    });
    await useConfiguredPaymentProvider(s.h.ctx);
  });
  afterAll(async () => {
    await Promise.all([s.h.close(), s.stripe.close()]);
  });

  const valid = {
    number: '5512345678',
    country_code: '52',
    template: 'Factura 1024',
    message: 'Tu enlace de pago',
    amount: 1234.5,
  };
  const send = (a: TestAccount, body: Record<string, unknown> = {}) =>
    s.h.post('/paymentrequest/send', { ...valid, ...body }, a.apikey);
  const credit = async (a: TestAccount) => (await s.h.post('/credits/consult', {}, a.apikey)).body.credit;
  const row = (requestId: string) =>
    s.h.ctx.db.kysely
      .selectFrom('payment_requests')
      .selectAll()
      .where('request_id', '=', requestId)
      .executeTakeFirstOrThrow();
  const deliver = (e: { body: string; signature?: string }) =>
    s.h.request('POST', '/payments/stripe/webhook', {
      body: e.body,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        ...(e.signature ? { 'stripe-signature': e.signature } : {}),
      },
    });
  const webhookRows = (eventId: string) =>
    s.h.ctx.db.kysely.selectFrom('payment_webhooks').selectAll().where('event_id', '=', eventId).execute();

  return { suite: s, valid, send, credit, row, deliver, webhookRows };
}
