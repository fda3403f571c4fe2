import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { createInstance } from '../features/chatapp/store.js';
import { addDoNotContact } from '../features/dnc/service.js';
import { cleanNationalNumber, cleanNumber } from './numbers.js';

describe("Mexico's old number forms", () => {
  it.each([
    ['044 55 1234 5678', '+525512345678'],
    ['045 (33) 1234-5678', '+523312345678'],
    ['5215512345678', '+525512345678'],
    ['+52 1 55 1234 5678', '+525512345678'],
    ['+52 044 55 1234 5678', '+525512345678'],
    ['5512345678', '5512345678'],
    ['04455123456789', '04455123456789'],
    ['0465512345678', '0465512345678'],
    ['+15215512345678', '+15215512345678'],
  ])('cleanNumber(%j) → %j', (raw, clean) => expect(cleanNumber(raw)).toBe(clean));

  it.each([
    ['044 55 1234 5678', '5512345678'],
    ['5215512345678', '5512345678'],
    ['55 1234 5678', '5512345678'],
  ])('cleanNationalNumber(%j) → %j', (raw, clean) => expect(cleanNationalNumber(raw)).toBe(clean));
});

describeEngines("Mexico's old number forms on every path that takes a Mexican number", (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  const numbersOf = (r: { body: { references: Array<{ number: string }> } }) => r.body.references.map((x) => x.number);

  it('/sms/send (with and without find_country_code) and /voice/send send to the 10-digit number', async () => {
    const a = await h.createAccount(50);
    const sms = await h.post(
      '/sms/send',
      { numbers: '044 55 1234 5671, 045 55 1234 5672, 5215512345673, +52 1 55 1234 5674', message: 'Hola' },
      a.apikey,
    );
    expect(sms.body).toMatchObject({ code: 'sms_11', total_messages: 4 });
    expect(numbersOf(sms)).toEqual(['525512345671', '525512345672', '525512345673', '525512345674']);
    const found = await h.post(
      '/sms/send',
      { numbers: '5215512345675', message: 'Hola', find_country_code: 1 },
      a.apikey,
    );
    expect(numbersOf(found)).toEqual(['525512345675']);
    // The same number in an old and a new form is one recipient written twice.
    expect(
      (await h.post('/sms/send', { numbers: '5512345678, 044 55 1234 5678', message: 'Hola' }, a.apikey)).body.code,
    ).toBe('sms_16');
    const voice = await h.post(
      '/voice/send',
      { numbers: '0445512345678, 5215512345679', country_code: '52', template: 'a', code: '1234' },
      a.apikey,
    );
    expect(numbersOf(voice)).toEqual(['525512345678', '525512345679']);
  });

  it('/chatapp/send, /contacts/add, /paymentrequest/send, /v2/otp and /optouts', async () => {
    const a = await h.createAccount(50);
    const { instance_id } = await createInstance(h.ctx.db.kysely, a.id);
    for (const number of ['044 55 1234 5678', '5215512345678'])
      expect((await h.post('/chatapp/send', { instance_id, number, message: 'Hola' }, a.apikey)).body.code).toBe(
        'whatsapp_21',
      );
    const list_key = (await h.post('/agendas/add', { agenda_name: 'Clientes' }, a.apikey)).body.list_key;
    const contact = await h.post('/contacts/add', { list_key, number: '045 55 1234 5678' }, a.apikey);
    expect(contact.body).toMatchObject({ code: 'contact_13', callback: { number: '525512345678' } });
    const pay = await h.post(
      '/paymentrequest/send',
      { number: '5215512345678', country_code: '52', template: 'Factura', message: 'Tu enlace' },
      a.apikey,
    );
    expect(pay.body.code).toBe('sms_11');
    const otp = await h.post(
      '/v2/otp',
      { phone_number: '044 55 1234 5670', country_code: '52', company: 'Acme', code_show: 1 },
      a.apikey,
    );
    expect(otp.status).toBe(201);
    expect((await h.get('/v2/otp/status?phone_number=5512345670&country_code=52', a.apikey)).body.state).toBe(
      'pending',
    );
    await h.post('/optouts', { numbers: '0445512345601, 5215512345602' }, a.apikey);
    const listed = (await h.get('/optouts', a.apikey)).body.optouts.map((o: { number: string }) => o.number);
    expect(listed).toEqual(['525512345601', '525512345602']);
    await addDoNotContact(h.ctx.db, '5215512345603');
    const held = await h.post('/sms/send', { numbers: '5512345603', message: 'Hola' }, a.apikey);
    expect(held.body).toMatchObject({ code: 'sms_11', credit: 0 });
  });
});
