import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  describeEngines,
  eventually,
  startHarness,
  type Harness,
  type TestAccount,
} from '../../../test/helpers/harness.js';
import { escapeHtml } from './page.js';
import { amountToCents } from './service.js';

describe('payment amounts', () => {
  it.each([
    [15, 1500],
    [110000, 11_000_000],
    [20.5, 2050],
    [0.1 + 19.9, 2000],
    [1234.56, 123456],
    [14.99, undefined],
    [110000.01, undefined],
    [15.555, undefined],
    [Number.NaN, undefined],
    [Infinity, undefined],
  ])('%d → %s cents', (amount, cents) => expect(amountToCents(amount)).toBe(cents));

  it('escapes HTML', () =>
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;'));
});

describeEngines('payment requests', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { PAYMENT_COUNTRY_CODES: '52, 1' } });
  });
  afterAll(() => h.close());

  const valid = {
    number: '5512345678',
    country_code: '52',
    template: 'Factura 1024',
    message: 'Hola, aquí está tu enlace de pago',
    amount: 1234.5,
    name: 'Ana López',
    email: 'ana@example.com',
  };
  const send = (a: TestAccount, body: Record<string, unknown> = {}) =>
    h.post('/paymentrequest/send', { ...valid, ...body }, a.apikey);
  const credit = async (a: TestAccount) => (await h.post('/credits/consult', {}, a.apikey)).body.credit;
  const pathOf = (url: string) => new URL(url).pathname;
  const complete = (url: string, form: Record<string, string> = {}) =>
    h.request('POST', `${pathOf(url)}/complete`, { form });
  const getRequest = (a: TestAccount, requestId: unknown) =>
    h.post('/paymentrequest/get', { request_id: requestId }, a.apikey);
  const countRows = async (accountId: number) =>
    (await h.ctx.db.kysely.selectFrom('payment_requests').select('id').where('account_id', '=', accountId).execute())
      .length;

  it('creates a request with a UUID and sends its link by SMS through the pipeline, charged like an SMS', async () => {
    const a = await h.createAccount(5);
    const r = await send(a);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, status: 200, code: 'sms_11', credit: 1 });
    expect(r.body.request_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(r.body.payment_url).toMatch(new RegExp(`^${h.config.publicBaseUrl}/pay/[A-Za-z0-9_-]{12}$`));
    expect(await credit(a)).toBe(4);
    const message = await h.ctx.db.kysely
      .selectFrom('messages')
      .selectAll()
      .where('reference', '=', r.body.reference)
      .executeTakeFirstOrThrow();
    // Accents the GSM-7 alphabet lacks are replaced (í → i); the link follows a space.
    expect(message).toMatchObject({
      account_id: a.id,
      channel: 'sms',
      number: '525512345678',
      text: `Hola, aqui esta tu enlace de pago ${r.body.payment_url}`,
    });
    const campaign = await h.ctx.db.kysely
      .selectFrom('campaigns')
      .selectAll()
      .where('id', '=', message.campaign_id)
      .executeTakeFirstOrThrow();
    expect(campaign.source).toBe('payment');
    h.ctx.worker.nudge();
    await eventually(
      async () =>
        (await h.ctx.db.kysely.selectFrom('messages').select('status').where('id', '=', message.id).executeTakeFirst())
          ?.status === 'delivered',
      15_000,
    );
    const state = await getRequest(a, r.body.request_id);
    expect(state.body).toMatchObject({
      success: true,
      code: 'payment_get_01',
      request_id: r.body.request_id,
      payment_status: 'pending',
      amount: 1234.5,
      paid_amount: null,
      currency: 'MXN',
      template: 'Factura 1024',
      number: '525512345678',
      reference: r.body.reference,
      paid_date: null,
    });
    expect(state.body.created_date).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });

  it('refuses with sms_07 when the balance does not cover the SMS, creating nothing', async () => {
    const a = await h.createAccount(0.5);
    const r = await send(a);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: 'sms_07' });
    expect(await countRows(a.id)).toBe(0);
    expect(
      await h.ctx.db.kysely.selectFrom('messages').select('id').where('account_id', '=', a.id).execute(),
    ).toHaveLength(0);
    expect(await credit(a)).toBe(0.5);
  });

  it.each([
    [{ number: undefined }, 'payment_01'],
    [{ number: '' }, 'payment_01'],
    [{ number: '55123456789' }, 'payment_02'],
    [{ number: '55/1234/5678' }, 'payment_02'],
    [{ number: '123' }, 'payment_02'],
    [{ number: ['5512345678'] }, 'payment_01'],
    [{ country_code: undefined }, 'payment_03'],
    [{ country_code: 'mx' }, 'payment_04'],
    [{ country_code: '57' }, 'payment_04'],
    [{ template: undefined }, 'payment_05'],
    [{ template: '   ' }, 'payment_05'],
    [{ template: 't'.repeat(41) }, 'payment_06'],
    [{ message: undefined }, 'payment_07'],
    [{ message: ' ' }, 'payment_07'],
    [{ message: 'm'.repeat(124) }, 'payment_08'],
    [{ amount: 14.99 }, 'payment_09'],
    [{ amount: 110000.01 }, 'payment_09'],
    [{ amount: 15.555 }, 'payment_09'],
    [{ amount: 'mucho' }, 'payment_09'],
    [{ amount: -20 }, 'payment_09'],
    [{ amount: 1e308 }, 'payment_09'],
    [{ amount: { $gt: 0 } }, 'payment_09'],
    [{ name: 'n'.repeat(151) }, 'payment_10'],
    [{ email: 'not-an-email' }, 'payment_11'],
    [{ email: `${'e'.repeat(95)}@x.com` }, 'payment_11'],
    // 62 '€' are 124 GSM-7 septets (extension characters count two): with the link, over 160.
    [{ message: '€'.repeat(63) }, 'payment_12'],
  ])('refuses %j with %s and charges nothing', async (change, code) => {
    const a = await h.createAccount(5);
    const r = await send(a, change);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, status: 400, code });
    expect(await credit(a)).toBe(5);
    expect(await countRows(a.id)).toBe(0);
  });

  it('accepts every limit exactly, optional fields absent, form bodies and configured countries', async () => {
    const a = await h.createAccount(10);
    const link = `${h.config.publicBaseUrl}/pay/xxxxxxxxxxxx`.length + 1;
    const cases: Array<Record<string, unknown>> = [
      { template: 't'.repeat(40), message: 'm'.repeat(Math.min(123, 160 - link)), amount: 15, name: 'n'.repeat(150) },
      { amount: 110000, message: '€'.repeat(Math.floor((160 - link) / 2)) },
      { amount: undefined, name: undefined, email: undefined },
      { amount: '', name: '', email: '' },
      { number: '2025550123', country_code: '+1' },
    ];
    for (const c of cases) expect((await send(a, c)).body.code, JSON.stringify(c).slice(0, 80)).toBe('sms_11');
    const form = await h.request('POST', '/paymentrequest/send', {
      apikey: a.apikey,
      form: { number: '5512345678', country_code: '52', template: 'T', message: 'Paga aqui', amount: '20.50' },
    });
    expect(form.body.code).toBe('sms_11');
    expect((await getRequest(a, form.body.request_id)).body.amount).toBe(20.5);
    expect(await credit(a)).toBe(4);
  });

  it('serves the link as a page with amount, concept and name, escaping what it renders', async () => {
    const a = await h.createAccount(5);
    const r = await send(a, { template: '<script>alert(1)</script>', name: `O'Hara & "Hijos"` });
    const page = await h.get(pathOf(r.body.payment_url));
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.body).toContain('$1,234.50 MXN');
    expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.body).not.toContain('<script>');
    expect(page.body).toContain('O&#39;Hara &amp; &quot;Hijos&quot;');
    expect(page.body).toContain(`action="${pathOf(r.body.payment_url)}/complete"`);
  });

  it('answers a 404 page for unknown or malformed ids', async () => {
    for (const id of ['AAAAAAAAAAAA', 'short', '%3Cscript%3E', 'x'.repeat(90), '..%2F..%2Fetc']) {
      const page = await h.get(`/pay/${id}`);
      expect(page.status, id).toBe(404);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.body).toContain('Pago no encontrado');
      expect((await h.request('POST', `/pay/${id}/complete`, { form: {} })).status).toBe(404);
    }
  });

  it('completes a payment once with the simulated provider', async () => {
    const a = await h.createAccount(5);
    const r = await send(a);
    const done = await complete(r.body.payment_url);
    expect(done.status).toBe(200);
    expect(done.body).toContain('Pago completado');
    const state = await getRequest(a, r.body.request_id);
    expect(state.body).toMatchObject({ payment_status: 'paid', paid_amount: 1234.5 });
    expect(state.body.paid_date).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const again = await complete(r.body.payment_url);
    expect(again.status).toBe(409);
    expect(again.body).toContain('ya fue completado');
    const page = await h.get(pathOf(r.body.payment_url));
    expect(page.body).toContain('ya fue completado');
    expect(page.body).not.toContain('<form');
  });

  it('pays once under parallel completions', async () => {
    const a = await h.createAccount(5);
    const r = await send(a);
    const replies = await Promise.all(Array.from({ length: 8 }, () => complete(r.body.payment_url)));
    expect(replies.filter((x) => x.status === 200)).toHaveLength(1);
    expect(replies.filter((x) => x.status === 409)).toHaveLength(7);
    const row = await h.ctx.db.kysely
      .selectFrom('payment_requests')
      .selectAll()
      .where('request_id', '=', r.body.request_id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'paid', paid_amount_cents: 123450 });
    expect(row.provider_ref).toMatch(/^simch_/);
    const events = await h.ctx.db.kysely
      .selectFrom('events')
      .select('payload')
      .where('account_id', '=', a.id)
      .where('reference', '=', r.body.reference)
      .execute();
    expect(events.map((e) => JSON.parse(e.payload)).filter((p) => p.payment_status === 'paid')).toEqual([
      expect.objectContaining({
        type: 'confirmation',
        request_id: r.body.request_id,
        paid_amount: '1234.5',
        currency: 'MXN',
      }),
    ]);
  });

  it('lets the payer enter the amount when the request has none', async () => {
    const a = await h.createAccount(5);
    const r = await send(a, { amount: undefined });
    const page = await h.get(pathOf(r.body.payment_url));
    expect(page.body).toContain('name="amount"');
    for (const amount of [undefined, '', '14', 'abc', '110000.01', '20.001']) {
      const bad = await complete(r.body.payment_url, amount === undefined ? {} : { amount });
      expect(bad.status, String(amount)).toBe(400);
      expect(bad.body).toContain('role="alert"');
    }
    expect((await getRequest(a, r.body.request_id)).body.payment_status).toBe('pending');
    expect((await complete(r.body.payment_url, { amount: '250.5' })).status).toBe(200);
    expect((await getRequest(a, r.body.request_id)).body).toMatchObject({
      payment_status: 'paid',
      amount: null,
      paid_amount: 250.5,
    });
  });

  it('keeps a request pending when the simulated provider declines it (cents .13)', async () => {
    const a = await h.createAccount(5);
    const r = await send(a, { amount: 100.13 });
    const declined = await complete(r.body.payment_url);
    expect(declined.status).toBe(402);
    expect(declined.body).toContain('rechazado');
    expect((await getRequest(a, r.body.request_id)).body.payment_status).toBe('pending');
  });

  it("no account reaches another one's payment requests", async () => {
    const a = await h.createAccount(5);
    const b = await h.createAccount(5);
    const r = await send(a);
    for (const id of [r.body.request_id, r.body.request_id.toUpperCase()]) {
      const other = await getRequest(b, id);
      expect(other.status).toBe(400);
      expect(other.body).toMatchObject({ success: false, code: 'payment_13' });
    }
    expect((await getRequest(a, r.body.request_id.toUpperCase())).body.code).toBe('payment_get_01');
    for (const id of [undefined, '', 'not-a-uuid', 42, { $ne: null }])
      expect((await getRequest(a, id)).body.code).toBe('payment_13');
    expect((await h.post('/paymentrequest/send', valid)).status).toBe(401);
  });

  it('never answers 500 to hostile bodies', async () => {
    const a = await h.createAccount(5);
    const bodies = [
      '[]',
      'null',
      '"text"',
      '{"number": ',
      JSON.stringify({ ...valid, message: 'x'.repeat(200_000) }),
      JSON.stringify({ ...valid, template: '\u0000\uffff', name: '😀'.repeat(10) }),
    ];
    for (const body of bodies) {
      for (const path of ['/paymentrequest/send', '/paymentrequest/get']) {
        const r = await h.request('POST', path, {
          apikey: a.apikey,
          body,
          headers: { 'content-type': 'application/json' },
        });
        expect(r.status, `${path} ${body.slice(0, 20)}`).toBeLessThan(500);
      }
    }
    const r = await send(a);
    for (const body of ['[]', 'null', '{"amount": {"a": 1}}']) {
      expect(
        (
          await h.request('POST', `${pathOf(r.body.payment_url)}/complete`, {
            body,
            headers: { 'content-type': 'application/json' },
          })
        ).status,
      ).toBeLessThan(500);
    }
  });
});
