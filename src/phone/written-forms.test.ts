import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { createInstance } from '../features/chatapp/store.js';
import { cleanCountryCode, cleanNumber } from './numbers.js';

describe('country codes and numbers as clients write them', () => {
  it.each([
    ['52', '52'],
    ['+52', '52'],
    ['052', '52'],
    ['0052', '52'],
    [' 52', '52'],
    ['+1', '1'],
    ['001', '1'],
    ['+ 57', '57'],
    ['0', '0'],
    ['00052', '00052'],
    ['5a', '5a'],
    ['', ''],
  ])('country_code %j → %j', (raw, clean) => expect(cleanCountryCode(raw)).toBe(clean));

  it.each([
    ['55 1234 5678', '5512345678'],
    ['55-1234-5678', '5512345678'],
    ['(55) 1234.5678', '5512345678'],
    ['+52 55 1234 5678', '+525512345678'],
  ])('number %j → %j', (raw, clean) => expect(cleanNumber(raw)).toBe(clean));
});

describeEngines('country codes and numbers as clients write them, through HTTP', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  const numbersOf = (r: { body: { references: Array<{ number: string }> } }) => r.body.references.map((x) => x.number);

  it('/sms/send: +52, 052, 0052 and 52 as a JSON number all mean Mexico; numbers with spaces, dashes, a leading + and ", " separators', async () => {
    const a = await h.createAccount(50);
    for (const country_code of ['+52', '052', '0052', 52, '52']) {
      const r = await h.post('/sms/send', { numbers: '5512345678', message: 'Hola', country_code }, a.apikey);
      expect(r.body.code, `country_code ${country_code}`).toBe('sms_11');
      expect(numbersOf(r)).toEqual(['525512345678']);
    }
    const r = await h.post(
      '/sms/send',
      { numbers: '55 1234 5671, 55-1234-5672,+52 55 1234 5673, +1 212 555 0100', message: 'Hola', country_code: '+52' },
      a.apikey,
    );
    expect(r.body).toMatchObject({ code: 'sms_11', total_messages: 4 });
    expect(numbersOf(r)).toEqual(['525512345671', '525512345672', '525512345673', '12125550100']);
    // A form body written by hand with an unencoded '+' reads ' 52': still Mexico.
    const raw = await h.request('POST', '/sms/send', {
      apikey: a.apikey,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'numbers=5512345678&message=Hola&country_code=+52',
    });
    expect(raw.body.code).toBe('sms_11');
    const form = await h.request('POST', '/sms/send', {
      apikey: a.apikey,
      form: { numbers: '5512345678, 5512345679', message: 'Hola', country_code: '+52', source: 'mcp' },
    });
    expect(numbersOf(form)).toEqual(['525512345678', '525512345679']);
    expect((await h.get('/sms/send?numbers=5512345678&message=Hola&country_code=%2B52', a.apikey)).body.code).toBe(
      'sms_11',
    );
    // Still refused: unsupported codes, a repeat written two ways, a malformed number.
    expect(
      (await h.post('/sms/send', { numbers: '5512345678', message: 'Hola', country_code: '+99' }, a.apikey)).body.code,
    ).toBe('sms_18');
    expect(
      (await h.post('/sms/send', { numbers: '5512345678', message: 'Hola', country_code: '0' }, a.apikey)).body.code,
    ).toBe('sms_18');
    expect(
      (await h.post('/sms/send', { numbers: '5512345678, +52 55 1234 5678', message: 'Hola' }, a.apikey)).body.code,
    ).toBe('sms_16');
    expect((await h.post('/sms/send', { numbers: '55 1234 567x', message: 'Hola' }, a.apikey)).body.code).toBe(
      'sms_04',
    );
  });

  it('ignores extra fields in bodies and query strings ("source": "mcp") and takes flags as "1", 1 or true', async () => {
    const a = await h.createAccount(10);
    for (const sandbox of ['1', 1, true]) {
      const r = await h.post(
        '/sms/send?source=mcp',
        { numbers: '5512345678', message: 'Hola', sandbox, source: 'mcp' },
        a.apikey,
      );
      expect(r.body, String(sandbox)).toMatchObject({ code: 'sms_11', credit: 0 });
    }
    expect(
      (await h.post('/campaigns?source=mcp', { source: 'mcp', sandbox: true }, a.apikey)).body.campaigns,
    ).toHaveLength(3);
    const otp = await h.post(
      '/v2/otp?source=mcp',
      {
        phone_number: 5512345678,
        country_code: 52,
        company: 'Acme',
        code_length: 6,
        code_rotate: true,
        code_show: true,
        source: 'mcp',
      },
      a.apikey,
    );
    expect(otp.status).toBe(201);
    expect(
      (await h.get('/v2/otp/status?phone_number=5512345678&country_code=52&source=mcp', a.apikey)).body.state,
    ).toBe('pending');
    expect(
      (
        await h.post(
          '/reports/details',
          {
            campaign_id: String((await h.post('/campaigns', { sandbox: 1 }, a.apikey)).body.campaigns[0].id),
            sandbox: '1',
            source: 'mcp',
          },
          a.apikey,
        )
      ).body.code,
    ).toBe('details_01');
  });

  it('the apikey header with a leading space authenticates', async () => {
    const a = await h.createAccount(1);
    const r = await h.request('POST', '/credits/consult', { headers: { apikey: ` ${a.apikey}` }, body: {} });
    expect(r.body).toMatchObject({ code: 'credit_01', credit: 1 });
  });

  it('/voice/send, /chatapp/send, /contacts/add, /paymentrequest/send and /v2/otp take the same forms', async () => {
    const a = await h.createAccount(50);
    const voice = await h.request('POST', '/voice/send', {
      apikey: a.apikey,
      form: {
        numbers: '+52 55 1234 5678, 55-1234-5679',
        country_code: '+52',
        template: 'a',
        code: '1234',
        company: 'Acme',
      },
    });
    expect(voice.body).toMatchObject({ code: 'sms_11', total_messages: 2 });
    expect(numbersOf(voice)).toEqual(['525512345678', '525512345679']);

    const { instance_id } = await createInstance(h.ctx.db.kysely, a.id);
    for (const [number, country_code] of [
      ['+52 55 1234 5678', undefined],
      ['55-1234-5678', '052'],
      ['5512345678', 52],
    ]) {
      const chat = await h.post(
        '/chatapp/send',
        { instance_id, number, message: 'Hola', ...(country_code !== undefined ? { country_code } : {}) },
        a.apikey,
      );
      expect(chat.body.code, `${number} ${country_code}`).toBe('whatsapp_21');
    }

    const list_key = (await h.post('/agendas/add', { agenda_name: 'Clientes' }, a.apikey)).body.list_key;
    const contact = await h.request('POST', '/contacts/add', {
      apikey: a.apikey,
      form: { list_key, number: '55 1234-5678', country_code: '+52' },
    });
    expect(contact.body).toMatchObject({
      code: 'contact_13',
      callback: { number: '525512345678', country_code: '52' },
    });
    const again = await h.post('/contacts/add', { list_key, number: '+52 55 1234 5678', name: 'Ana' }, a.apikey);
    expect(again.body).toMatchObject({ code: 'contact_15', callback: { number: '525512345678', name: 'Ana' } });

    const pay = await h.post(
      '/paymentrequest/send',
      { number: '55 1234 5678', country_code: '+52', template: 'Factura', message: 'Tu enlace' },
      a.apikey,
    );
    expect(pay.body.code).toBe('sms_11');

    const otp = await h.post(
      '/v2/otp',
      { phone_number: '55 1234 5678', country_code: '+52', company: 'Acme', code_show: 1 },
      a.apikey,
    );
    expect(otp.status).toBe(201);
    const status = await h.get('/v2/otp/status?phone_number=5512345678&country_code=0052', a.apikey);
    expect(status.body.state).toBe('pending');
    const verify = await h.request('POST', '/v2/otp/verify', {
      apikey: a.apikey,
      form: { phone_number: '5512345678', country_code: '052', code: otp.body.code },
    });
    expect(verify.body).toMatchObject({ state: 'verified' });
  });
});
