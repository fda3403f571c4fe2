import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../test/helpers/harness.js';
import { contactCalls } from '../../test/helpers/contacts.js';

/**
 * A country of SMS_COUNTRY_CODES whose numbers are not 10 digits (Spain, 34:
 * 9 digits) is sent to by its own length and type, on every path that takes
 * a number with a country code; 52, 1 and 57 keep exactly 10 digits.
 */
describeEngines('numbers of other countries', (engine) => {
  let h: Harness;
  let a: TestAccount;
  beforeAll(async () => {
    h = await startHarness(engine, {
      worker: false,
      env: { SMS_COUNTRY_CODES: '52,1,57,34', PAYMENT_COUNTRY_CODES: '52,34' },
    });
    a = await h.createAccount(1000);
  });
  afterAll(() => h.close());

  const credit = async () => (await h.post('/credits/consult', {}, a.apikey)).body.credit as number;
  const stored = (reference: string) =>
    h.ctx.db.kysely
      .selectFrom('messages')
      .select(['number', 'price_units'])
      .where('reference', '=', reference)
      .execute();
  const send = (body: Record<string, unknown>) => h.post('/sms/send', { message: 'Hola', ...body }, a.apikey);

  it('sends to 34 612345678 in every written form, stored as 34612345678 and charged', async () => {
    const forms: Array<Record<string, unknown>> = [
      { numbers: '612345678', country_code: '34' },
      { numbers: '612 345 678', country_code: '+34' },
      { numbers: '34612345678', find_country_code: 1 },
      { numbers: '+34 612 345 678' },
    ];
    for (const form of forms) {
      const before = await credit();
      const r = await send(form);
      expect(r.status, JSON.stringify(form)).toBe(200);
      expect(r.body.references).toEqual([{ reference: expect.any(String), number: '34612345678' }]);
      expect(r.body.credit).toBe(1);
      expect(await credit()).toBe(before - 1);
      expect(await stored(r.body.references[0].reference)).toEqual([{ number: '34612345678', price_units: 10_000 }]);
    }
    const get = await h.get('/sms/send?numbers=712345678&country_code=34&message=Hola', a.apikey);
    expect(get.body.references[0].number).toBe('34712345678');
  });

  it('refuses a 34 number of the wrong length (sms_04) or of a type that takes no SMS (sms_24); nothing charged', async () => {
    const before = await credit();
    for (const numbers of ['61234567', '6123456789', '0612345678'])
      expect((await send({ numbers, country_code: '34' })).body.code, numbers).toBe('sms_04');
    for (const numbers of ['3461234567', '346123456789'])
      expect((await send({ numbers, find_country_code: 1 })).body.code, numbers).toBe('sms_04');
    for (const numbers of ['912345678', '901234567', '800123456'])
      expect((await send({ numbers, country_code: '34' })).body.code, numbers).toBe('sms_24');
    expect(await credit()).toBe(before);
  });

  it('keeps 52 at exactly 10 digits, and refuses a country not in the list as before', async () => {
    expect((await send({ numbers: '5512345678' })).status).toBe(200);
    for (const numbers of ['551234567', '55123456789'])
      expect((await send({ numbers })).body.code, numbers).toBe('sms_04');
    expect((await send({ numbers: '5512345678', find_country_code: 1 })).body.code).toBe('sms_04');
    expect((await send({ numbers: '7911123456', country_code: '44' })).body.code).toBe('sms_18');
    expect((await send({ numbers: '447911123456', find_country_code: 1 })).body.code).toBe('sms_18');
    expect((await send({ numbers: '791112345', country_code: '44' })).body.code).toBe('sms_18');
  });

  it('sends an OTP and a payment link to 34 612345678; a wrong length is refused as an unsupported number', async () => {
    const ok = await h.post(
      '/v2/otp',
      { phone_number: '612345678', country_code: '34', company: 'Acme', channel: 'sms' },
      a.apikey,
    );
    expect(ok.status).toBe(201);
    const bad = await h.post(
      '/v2/otp',
      { phone_number: '61234567', country_code: '34', company: 'Acme', channel: 'sms' },
      a.apikey,
    );
    expect(bad.body).toMatchObject({ success: false, error: 'otp_number_unsupported', field: 'phone_number' });
    const pay = (number: string) =>
      h.post(
        '/paymentrequest/send',
        { number, country_code: '34', template: 'F1', message: 'Paga', amount: 100 },
        a.apikey,
      );
    expect((await pay('612345678')).status).toBe(200);
    expect((await pay('61234567')).body.code).toBe('payment_02');
  });

  it('stores contacts and opt-outs of 34 by their country length; an opted-out 34 number is not charged', async () => {
    const { newList, add, entries } = contactCalls(
      () => h,
      () => a,
    );
    const list = await newList();
    expect((await add({ list_key: list, number: '612345678', country_code: '34' })).status).toBe(200);
    expect((await add({ list_key: list, number: '61234567', country_code: '34' })).status).toBe(400);
    expect((await entries(list)).map((e) => e.contact_number)).toEqual(['34612345678']);

    expect((await h.post('/optouts', { numbers: '622345678', country_code: '34' }, a.apikey)).status).toBe(200);
    expect((await h.post('/optouts', { numbers: '62234567', country_code: '34' }, a.apikey)).body.code).toBe(
      'optout_05',
    );
    const listed = (await h.get('/optouts', a.apikey)).body.optouts as Array<{ number: string }>;
    expect(listed.map((o) => o.number)).toEqual(['34622345678']);
    const before = await credit();
    const r = await send({ numbers: '622345678', country_code: '34' });
    expect(r.status).toBe(200);
    expect(await credit()).toBe(before);
  });
});
