import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';
import { recordCarrier } from './testing.js';

/**
 * Toll fraud inside the accepted country codes: numbers that share +1 with the
 * US and Canada, premium and toll-free ranges, and numbers too short to be
 * real. None gets a code, by any channel or API, and none is charged.
 */
const REFUSED: Array<[string, string, string]> = [
  ['Jamaica (+1 876)', '1', '8762101234'],
  ['the Dominican Republic (+1 809)', '1', '8092345678'],
  ['Anguilla (+1 264)', '1', '2642351234'],
  ['Grenada (+1 473)', '1', '4734031234'],
  ['US premium rate (+1 900)', '1', '9002345678'],
  ['a 7-digit +1 number', '1', '5551234'],
  ['Mexican premium rate (+52 900)', '52', '9001234567'],
  ['Mexican toll-free (+52 800)', '52', '8001234567'],
  ['a 4-digit +52 number', '52', '1234'],
];

describeEngines('OTP numbers: one number rule for every channel and both OTP APIs', (engine) => {
  let h: Harness;
  let carrier: ReturnType<typeof recordCarrier>;
  beforeAll(async () => {
    h = await startHarness(engine);
    carrier = recordCarrier(h.ctx);
  });
  afterAll(() => h.close());

  const credit = async (a: TestAccount) => (await h.post('/credits/consult', {}, a.apikey)).body.credit;
  const messagesTo = (full: string) =>
    h.ctx.db.kysely.selectFrom('messages').select('id').where('number', '=', full).execute();

  /** Voice goes only to /voice/send's country (52), so a +1 number is refused for its country. */
  const expected = (channel: string, cc: string) =>
    channel === 'voice' && cc === '1'
      ? ['otp_country_unsupported', 'country_code']
      : ['otp_number_unsupported', 'phone_number'];

  async function expectNothingSent(a: TestAccount, full: string) {
    expect(carrier.textsTo(full)).toEqual([]);
    expect(await messagesTo(full)).toEqual([]);
    expect(await credit(a)).toBe(100);
  }

  for (const channel of ['sms', 'voice']) {
    it.each(REFUSED)(`POST /v2/otp by ${channel} refuses %s and charges nothing`, async (_name, cc, phone) => {
      const a = await h.createAccount(100);
      const r = await h.post(
        '/v2/otp',
        { phone_number: phone, country_code: cc, company: 'Acme', channel, code_show: 1 },
        a.apikey,
      );
      const [error, field] = expected(channel, cc);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, error, field });
      expect(r.body.code).toBeUndefined();
      await expectNothingSent(a, cc + phone);
    });

    const voice = channel === 'voice' ? '1' : '0';
    it.each(REFUSED)(
      `the previous OTP API (voice=${voice}) refuses %s and charges nothing`,
      async (_name, cc, phone) => {
        const a = await h.createAccount(100);
        const fields = { phone_number: phone, country_code: cc, company: 'Acme', voice, whatsapp: '0' };
        const started = await h.request('POST', '/protected/json/phones/verification/start', {
          apikey: a.apikey,
          form: fields,
        });
        expect(started.body).toMatchObject({ success: false, code: expected(channel, cc)[0] });
        const resent = await h.request('POST', '/protected/json/phones/verification/resend', {
          apikey: a.apikey,
          form: { ...fields, reset_code: '1' },
        });
        expect(resent.body).toMatchObject({ success: false, code: expected(channel, cc)[0] });
        // sandbox 1 checks a start as a real one would be checked.
        const sandbox = await h.request('POST', '/protected/json/phones/verification/start', {
          apikey: a.apikey,
          form: { ...fields, sandbox: '1' },
        });
        expect(sandbox.body).toMatchObject({ success: false, code: expected(channel, cc)[0] });
        await expectNothingSent(a, cc + phone);
      },
    );
  }

  it("still sends to Mexican numbers (the simulator's too), and to the US and Canada by SMS", async () => {
    const a = await h.createAccount(100);
    for (const [cc, phone, channel] of [
      ['52', '5550000001', 'voice'],
      ['52', '5512345678', 'sms'],
      ['1', '2125551234', 'sms'],
      ['1', '4165551234', 'sms'],
    ]) {
      const r = await h.post('/v2/otp', { phone_number: phone, country_code: cc, company: 'Acme', channel }, a.apikey);
      expect(r.status).toBe(201);
    }
  });
});
