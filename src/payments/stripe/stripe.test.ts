import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  describeEngines,
  eventually,
  startHarness,
  type Harness,
  type TestAccount,
} from '../../../test/helpers/harness.js';
import { fullSession, startTestStripe, type TestStripe } from '../../../test/helpers/stripe.js';
import { useConfiguredPaymentProvider } from '../configured.js';
import { saveStripeSettings } from './settings.js';
import { signatureProblem } from './webhook.js';

/** The account's webhook: a real HTTP receiver collecting the bodies it gets. */
async function accountReceiver() {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = req.url?.includes('?') ? req.url.split('?')[1] : '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method === 'POST') bodies.push(body);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    bodies,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describe('Stripe-Signature', () => {
  it('accepts a matching v1 within the tolerance and names each problem', () => {
    const body = '{"id":"evt_1"}';
    const t = 1_700_000_000;
    const v1 = createHmac('sha256', 'whsec_abc').update(`${t}.${body}`).digest('hex');
    expect(signatureProblem(`t=${t},v1=${v1}`, body, 'whsec_abc', t * 1000)).toBeNull();
    expect(signatureProblem(`t=${t},v0=00,v1=${'0'.repeat(64)},v1=${v1}`, body, 'whsec_abc', t * 1000)).toBeNull();
    expect(signatureProblem(undefined, body, 'whsec_abc')).toBe('missing_signature');
    expect(signatureProblem(`v1=${v1}`, body, 'whsec_abc')).toBe('malformed_signature');
    expect(signatureProblem(`t=${t},v1=${v1}`, body + ' ', 'whsec_abc', t * 1000)).toBe('bad_signature');
    expect(signatureProblem(`t=${t},v1=${v1}`, body, 'whsec_abc', (t + 301) * 1000)).toBe('stale_timestamp');
  });
});

describeEngines('payment links through Stripe Checkout', (engine) => {
  let h: Harness;
  let stripe: TestStripe;
  let hook: Awaited<ReturnType<typeof accountReceiver>>;
  beforeAll(async () => {
    [h, stripe, hook] = await Promise.all([
      startHarness(engine, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } }),
      startTestStripe(),
      accountReceiver(),
    ]);
    await saveStripeSettings(h.ctx, {
      apiBase: stripe.url,
      secretKey: stripe.secretKey,
      webhookSecret: stripe.webhookSecret,
    });
    await useConfiguredPaymentProvider(h.ctx);
  });
  afterAll(async () => {
    await Promise.all([h.close(), stripe.close(), hook.close()]);
  });

  const valid = {
    number: '5512345678',
    country_code: '52',
    template: 'Factura 1024',
    message: 'Tu enlace de pago',
    amount: 1234.5,
  };
  const send = (a: TestAccount, body: Record<string, unknown> = {}) =>
    h.post('/paymentrequest/send', { ...valid, ...body }, a.apikey);
  const credit = async (a: TestAccount) => (await h.post('/credits/consult', {}, a.apikey)).body.credit;
  const row = (requestId: string) =>
    h.ctx.db.kysely
      .selectFrom('payment_requests')
      .selectAll()
      .where('request_id', '=', requestId)
      .executeTakeFirstOrThrow();
  const deliver = (e: { body: string; signature?: string }) =>
    h.request('POST', '/payments/stripe/webhook', {
      body: e.body,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        ...(e.signature ? { 'stripe-signature': e.signature } : {}),
      },
    });
  const webhookRows = (eventId: string) =>
    h.ctx.db.kysely.selectFrom('payment_webhooks').selectAll().where('event_id', '=', eventId).execute();

  it('opens a Checkout session for amount and currency, the short link leads to it, and the signed webhook marks it paid once', async () => {
    const a = await h.createAccount(5);
    expect((await h.post('/webhook/add', { url: hook.url, status: '1' }, a.apikey)).body.code).toBe('add_webhook_01');
    const r = await send(a);
    expect(r.body).toMatchObject({ success: true, code: 'sms_11' });
    const creation = stripe.creations.find((c) => c.form.get('client_reference_id') === r.body.request_id)!;
    expect(creation.idempotencyKey).toBe(r.body.request_id);
    expect(Object.fromEntries(creation.form)).toMatchObject({
      mode: 'payment',
      'line_items[0][price_data][currency]': 'mxn',
      'line_items[0][price_data][unit_amount]': '123450',
      'line_items[0][price_data][product_data][name]': 'Factura 1024',
      'line_items[0][quantity]': '1',
      success_url: r.body.payment_url,
    });
    const stored = await row(r.body.request_id);
    const session = stripe.sessions.get(stored.checkout_id)!;
    expect(stored).toMatchObject({ provider: 'stripe', checkout_url: session.url });

    const link = await h.get(new URL(r.body.payment_url).pathname);
    expect(link.status).toBe(303);
    expect(link.headers.location).toBe(session.url);
    const page = await fetch(link.headers.location as string);
    expect(await page.text()).toContain('Factura 1024');

    // Stripe retries deliveries: five copies of one event at once apply once.
    const paidEvent = stripe.signedEvent('checkout.session.completed', {
      ...session,
      status: 'complete',
      payment_status: 'paid',
      payment_intent: 'pi_test_1',
    });
    const answers = await Promise.all(Array.from({ length: 5 }, () => deliver(paidEvent)));
    expect(answers.map((x) => x.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.map((x) => x.body.outcome).sort()).toEqual([
      'applied',
      'duplicate',
      'duplicate',
      'duplicate',
      'duplicate',
    ]);
    expect((await webhookRows(paidEvent.id)).map((w) => w.outcome).sort()).toEqual([
      'applied',
      'duplicate',
      'duplicate',
      'duplicate',
      'duplicate',
    ]);

    expect((await h.post('/paymentrequest/get', { request_id: r.body.request_id }, a.apikey)).body).toMatchObject({
      payment_status: 'paid',
      paid_amount: 1234.5,
    });
    expect(await row(r.body.request_id)).toMatchObject({ provider_ref: 'pi_test_1' });
    const events = await h.ctx.db.kysely
      .selectFrom('events')
      .selectAll()
      .where('account_id', '=', a.id)
      .where('reference', '=', r.body.reference)
      .execute();
    const paymentEvents = events.filter((e) => JSON.parse(e.payload).payment_status === 'paid');
    expect(paymentEvents).toHaveLength(1);
    const received = await eventually(async () => hook.bodies.find((b) => b.includes(r.body.request_id)), 15_000);
    expect(Object.fromEntries(new URLSearchParams(received))).toMatchObject({
      type: 'confirmation',
      reference: r.body.reference,
      payment_status: 'paid',
      paid_amount: '1234.5',
      currency: 'MXN',
    });

    // A paid request's link shows our page, no longer the checkout.
    expect((await h.get(new URL(r.body.payment_url).pathname)).status).toBe(200);
    expect(await credit(a)).toBe(4);
  });

  it('applies a realistic signed checkout.session.completed event over 4 KiB', async () => {
    const a = await h.createAccount(5);
    const r = await send(a);
    const session = stripe.sessions.get((await row(r.body.request_id)).checkout_id!)!;
    const paid = stripe.signedEvent(
      'checkout.session.completed',
      fullSession({ ...session, status: 'complete', payment_status: 'paid', payment_intent: 'pi_test_full_1' }),
    );
    expect(Buffer.byteLength(paid.body)).toBeGreaterThan(4096);
    const answer = await deliver(paid);
    expect([answer.status, answer.body.outcome]).toEqual([200, 'applied']);
    expect(await row(r.body.request_id)).toMatchObject({ status: 'paid', provider_ref: 'pi_test_full_1' });
  });

  it('refuses and records unsigned, forged and stale webhooks; the request stays pending', async () => {
    const a = await h.createAccount(5);
    const r = await send(a);
    const session = stripe.sessions.get((await row(r.body.request_id)).checkout_id)!;
    const paid = { ...session, status: 'complete' as const, payment_status: 'paid' as const };
    const forged = stripe.signedEvent('checkout.session.completed', paid, { secret: 'whsec_not_the_right_one' });
    const stale = stripe.signedEvent('checkout.session.completed', paid, { at: Math.floor(Date.now() / 1000) - 600 });
    for (const attempt of [{ body: forged.body }, forged, stale, { body: 'not json', signature: 't=1,v1=zz' }]) {
      const answer = await deliver(attempt);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ success: false, code: 'payment_webhook_01' });
      expect(JSON.stringify(answer.body)).not.toContain(stripe.webhookSecret);
    }
    // Counted with the other refused provider webhooks (`carriers rejections`), not one row each.
    const refused = await h.ctx.db.kysely
      .selectFrom('provider_rejections')
      .select(['reason', 'attempts'])
      .where('carrier', '=', 'stripe')
      .orderBy('id')
      .execute();
    expect(refused).toEqual([
      { reason: 'missing_signature', attempts: 1 },
      { reason: 'bad_signature', attempts: 1 },
      { reason: 'stale_timestamp', attempts: 1 },
      { reason: 'malformed_signature', attempts: 1 },
    ]);
    expect(
      await h.ctx.db.kysely.selectFrom('payment_webhooks').select('id').where('outcome', '=', 'refused').execute(),
    ).toEqual([]);
    expect((await row(r.body.request_id)).status).toBe('pending');
  });

  it('records an expired session: the link shows the request expired instead of the checkout', async () => {
    const a = await h.createAccount(5);
    const r = await send(a);
    const session = stripe.sessions.get((await row(r.body.request_id)).checkout_id)!;
    expect(
      (await deliver(stripe.signedEvent('checkout.session.expired', { ...session, status: 'expired' }))).body.outcome,
    ).toBe('applied');
    expect(await row(r.body.request_id)).toMatchObject({ status: 'pending', checkout_closed_reason: 'expired' });
    const page = await h.get(new URL(r.body.payment_url).pathname);
    expect(page.status).toBe(200);
    expect(page.body).toContain('expiró');
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

  it('a delayed payment method: completed while unpaid leaves the request pending; async_payment_succeeded marks it paid once', async () => {
    const a = await h.createAccount(5);
    const r = await send(a);
    const session = stripe.sessions.get((await row(r.body.request_id)).checkout_id)!;
    // OXXO: the voucher is issued, the session completes, the money comes days later.
    const completed = stripe.signedEvent('checkout.session.completed', {
      ...session,
      status: 'complete',
      payment_status: 'unpaid',
    });
    expect((await deliver(completed)).body.outcome).toBe('applied');
    expect(await row(r.body.request_id)).toMatchObject({ status: 'pending', checkout_closed_at: null });
    const succeeded = stripe.signedEvent('checkout.session.async_payment_succeeded', {
      ...session,
      status: 'complete',
      payment_status: 'paid',
      payment_intent: 'pi_oxxo_1',
    });
    const answers = await Promise.all([deliver(succeeded), deliver(succeeded), deliver(succeeded)]);
    expect(answers.map((x) => x.body.outcome).sort()).toEqual(['applied', 'duplicate', 'duplicate']);
    expect(await row(r.body.request_id)).toMatchObject({
      status: 'paid',
      provider_ref: 'pi_oxxo_1',
      paid_amount_cents: 123450,
    });
    const events = await h.ctx.db.kysely
      .selectFrom('events')
      .selectAll()
      .where('account_id', '=', a.id)
      .where('reference', '=', r.body.reference)
      .execute();
    expect(events.filter((e) => JSON.parse(e.payload).payment_status === 'paid')).toHaveLength(1);
  });

  it('async_payment_failed records the failed payment: the request stays unpaid and its link says so instead of opening the checkout', async () => {
    const a = await h.createAccount(5);
    const r = await send(a);
    const session = stripe.sessions.get((await row(r.body.request_id)).checkout_id)!;
    expect(
      (
        await deliver(
          stripe.signedEvent('checkout.session.completed', {
            ...session,
            status: 'complete',
            payment_status: 'unpaid',
          }),
        )
      ).body.outcome,
    ).toBe('applied');
    expect(
      (
        await deliver(
          stripe.signedEvent('checkout.session.async_payment_failed', {
            ...session,
            status: 'complete',
            payment_status: 'unpaid',
          }),
        )
      ).body.outcome,
    ).toBe('applied');
    expect(await row(r.body.request_id)).toMatchObject({ status: 'pending', checkout_closed_reason: 'payment_failed' });
    const page = await h.get(new URL(r.body.payment_url).pathname);
    expect(page.status).toBe(200);
    expect(page.body).toContain('El pago no se completó');
    expect(
      (await h.post('/paymentrequest/get', { request_id: r.body.request_id }, a.apikey)).body.payment_status,
    ).not.toBe('paid');
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
