import { beforeAll, expect, it } from 'vitest';
import { describeEngines, type Harness } from '../../../test/helpers/harness.js';
import type { TestStripe } from '../../../test/helpers/stripe.js';
import { stripeSuite } from '../../../test/helpers/stripe-suite.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';
import { eventually } from '../../../test/helpers/harness.js';
import { fullSession } from '../../../test/helpers/stripe.js';

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

describeEngines('payment links through Stripe Checkout', (engine) => {
  const { suite, send, credit, row, deliver, webhookRows } = stripeSuite(engine);
  let h: Harness;
  let stripe: TestStripe;
  beforeAll(() => {
    ({ h, stripe } = suite);
  });
  let hook: Awaited<ReturnType<typeof accountReceiver>>;
  beforeAll(async () => {
    hook = await accountReceiver();
  });
  afterAll(() => hook.close());

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
});
