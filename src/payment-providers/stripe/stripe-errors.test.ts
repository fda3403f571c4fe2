import { beforeAll, expect, it } from 'vitest';
import { describeEngines, type Harness } from '../../../test/helpers/harness.js';
import type { TestStripe } from '../../../test/helpers/stripe.js';
import { stripeSuite } from '../../../test/helpers/stripe-suite.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useConfiguredPaymentProvider } from '../configured.js';
import { saveStripeSettings } from './settings.js';

describeEngines('payment links through Stripe Checkout', (engine) => {
  const { suite, valid, send, credit, row } = stripeSuite(engine);
  let h: Harness;
  let stripe: TestStripe;
  beforeAll(() => {
    ({ h, stripe } = suite);
  });

  it('retries while Stripe is down or rate-limiting, with one idempotency key: one session, one SMS', async () => {
    const a = await h.createAccount(5);
    stripe.failNext(2, 503);
    const r = await send(a);
    expect(r.body.code).toBe('sms_11');
    const tries = stripe.creations.filter((c) => c.idempotencyKey === r.body.request_id);
    expect(tries.map((c) => c.answered)).toEqual([503, 503, 200]);
    expect([...stripe.sessions.values()].filter((s) => s.client_reference_id === r.body.request_id)).toHaveLength(1);
    expect(await credit(a)).toBe(4);

    stripe.failNext(4, 429);
    const refused = await send(a);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ success: false, code: 'payment_provider_02' });
    expect(await credit(a)).toBe(4);
    expect(
      await h.ctx.db.kysely.selectFrom('payment_requests').select('id').where('account_id', '=', a.id).execute(),
    ).toHaveLength(1);
  });

  it('an answer lost after Stripe created the session is retried with the same idempotency key: one session, one SMS, charged once', async () => {
    const a = await h.createAccount(5);
    stripe.dropNext(1);
    stripe.failNext(1, 502);
    const r = await send(a);
    expect(r.body.code).toBe('sms_11');
    const tries = stripe.creations.filter((c) => c.idempotencyKey === r.body.request_id);
    // A 502 from Stripe's edge, then the session created but its answer lost, then Stripe's replay of that session.
    expect(tries.map((c) => c.answered)).toEqual([502, 0, 200]);
    const sessions = [...stripe.sessions.values()].filter((s) => s.client_reference_id === r.body.request_id);
    expect(sessions).toHaveLength(1);
    expect((await row(r.body.request_id)).checkout_id).toBe(sessions[0].id);
    expect(await credit(a)).toBe(4);
  });

  it('a request Stripe refuses (wrong key) answers 502 at once, not retried; Stripe unreachable answers 503 after the retries; nothing sent or charged either way', async () => {
    const a = await h.createAccount(5);
    const messages = () => h.ctx.db.kysely.selectFrom('messages').select('id').where('account_id', '=', a.id).execute();
    try {
      await saveStripeSettings(h.ctx, {
        apiBase: stripe.url,
        secretKey: 'sk_test_not_the_right_key',
        webhookSecret: stripe.webhookSecret,
      });
      await useConfiguredPaymentProvider(h.ctx);
      const before = stripe.creations.length;
      const refused = await send(a);
      expect(refused.status).toBe(502);
      expect(refused.body).toMatchObject({
        success: false,
        code: 'payment_provider_01',
        provider_error: 'api_key_invalid',
      });
      expect(JSON.stringify(refused.body)).not.toContain('sk_test_not_the_right_key');
      expect(stripe.creations.slice(before).map((c) => c.answered)).toEqual([401]);

      // Nothing listens there: connection refused on every attempt.
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      await saveStripeSettings(h.ctx, {
        apiBase: `http://127.0.0.1:${port}`,
        secretKey: stripe.secretKey,
        webhookSecret: stripe.webhookSecret,
      });
      await useConfiguredPaymentProvider(h.ctx);
      const down = await send(a);
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ success: false, code: 'payment_provider_02' });
    } finally {
      await saveStripeSettings(h.ctx, {
        apiBase: stripe.url,
        secretKey: stripe.secretKey,
        webhookSecret: stripe.webhookSecret,
      });
      await useConfiguredPaymentProvider(h.ctx);
    }
    expect(await credit(a)).toBe(5);
    expect(await messages()).toEqual([]);
    expect(
      await h.ctx.db.kysely.selectFrom('payment_requests').select('id').where('account_id', '=', a.id).execute(),
    ).toEqual([]);
    // Working again: the next send goes through.
    expect((await send(a)).body.code).toBe('sms_11');
  });

  it('needs the amount (Checkout charges a fixed amount): payment_14, nothing sent', async () => {
    const a = await h.createAccount(5);
    const r = await h.post('/paymentrequest/send', { ...valid, amount: undefined }, a.apikey);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: 'payment_14' });
    expect(await credit(a)).toBe(5);
  });
});
