import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { createInstance } from '../features/chatapp/store.js';
import { channelNumbers, type SendChannel } from './accepted.js';

const config = { SMS_COUNTRY_CODES: '52,1,57', NANP_ALLOWED_REGIONS: 'US,CA' };

describe('channelNumbers', () => {
  it.each<[SendChannel, string, string, string | null]>([
    ['sms', '52', '5512345678', null],
    ['sms', '52', '5550000012', null],
    ['sms', '52', '9001234567', 'number'],
    ['sms', '52', '8001234567', 'number'],
    ['sms', '52', '1234', 'length'],
    ['sms', '52', '551234567', 'length'],
    ['sms', '1', '2125551234', null],
    ['sms', '1', '4165551234', null],
    ['sms', '1', '8762101234', 'number'],
    ['sms', '1', '9002345678', 'number'],
    ['sms', '1', '8005551234', 'number'],
    ['sms', '1', '5005551234', 'number'],
    ['sms', '1', '5551234', 'length'],
    ['sms', '57', '3001234567', null],
    ['sms', '57', '6012345678', null],
    ['sms', '34', '612345678', 'country'],
    ['rcs', '1', '8092345678', 'number'],
    ['voice', '52', '5512345678', null],
    ['voice', '52', '8001234567', 'number'],
    ['voice', '1', '2125551234', 'country'],
    ['chatapp', '57', '3001234567', 'country'],
    ['chatapp', '52', '9001234567', 'number'],
  ])('%s: +%s %s → %s', (channel, cc, national, refusal) => {
    expect(channelNumbers(config, channel).refusal(cc, national)).toBe(refusal);
  });

  it.each<[SendChannel, string, string, string | null]>([
    ['sms', '34', '612345678', null],
    ['sms', '34', '712345678', null],
    ['sms', '34', '61234567', 'length'],
    ['sms', '34', '6123456789', 'length'],
    ['sms', '34', '0612345678', 'length'],
    ['sms', '34', '912345678', 'number'],
    ['sms', '34', '901234567', 'number'],
    ['sms', '34', '800123456', 'number'],
    ['rcs', '34', '612345678', null],
    ['sms', '44', '7911123456', null],
    ['sms', '44', '2079460000', 'number'],
    ['sms', '354', '6111234', null],
    ['sms', '999', '612345678', 'country'],
  ])('SMS_COUNTRY_CODES=52,1,57,34,44,354,999 %s: +%s %s → %s', (channel, cc, national, refusal) => {
    const wider = { ...config, SMS_COUNTRY_CODES: '52,1,57,34,44,354' };
    expect(channelNumbers(wider, channel).refusal(cc, national)).toBe(refusal);
  });

  it('accepts +1 numbers of the regions NANP_ALLOWED_REGIONS lists', () => {
    const wider = channelNumbers({ ...config, NANP_ALLOWED_REGIONS: 'US,CA,JM' }, 'sms');
    expect(wider.refusal('1', '8762101234')).toBeNull();
    expect(wider.refusal('1', '8092345678')).toBe('number');
    expect(wider.refusal('1', '9002345678')).toBe('number');
  });
});

describeEngines("every send path refuses premium, toll-free and other NANP countries' numbers", (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { PAYMENT_COUNTRY_CODES: '52,1' } });
  });
  afterAll(() => h.close());

  it('/sms/send, /voice/send, /chatapp/send and /paymentrequest/send, each with its own code; nothing charged', async () => {
    const a = await h.createAccount(100);
    const instance = (await createInstance(h.ctx.db.kysely, a.id)).instance_id;
    const sms = (numbers: string) => h.post('/sms/send', { numbers, message: 'Hola', find_country_code: 1 }, a.apikey);
    for (const n of ['18762101234', '18092345678', '19002345678', '529001234567', '528001234567'])
      expect((await sms(n)).body.code).toBe('sms_24');
    const voice = (numbers: string) =>
      h.post('/voice/send', { numbers, country_code: '52', template: 'a', code: '1234' }, a.apikey);
    for (const n of ['9001234567', '8001234567']) expect((await voice(n)).body.code).toBe('sms_24');
    const chat = (number: string) =>
      h.post('/chatapp/send', { instance_id: instance, number, message: 'Hola' }, a.apikey);
    for (const n of ['9001234567', '8001234567']) expect((await chat(n)).body.code).toBe('whatsapp_05');
    const pay = (number: string, country_code: string) =>
      h.post('/paymentrequest/send', { number, country_code, template: 'F1', message: 'Paga', amount: 100 }, a.apikey);
    expect((await pay('9001234567', '52')).body.code).toBe('payment_02');
    expect((await pay('8762101234', '1')).body.code).toBe('payment_02');
    expect((await h.post('/credits/consult', {}, a.apikey)).body.credit).toBe(100);
    expect(await h.ctx.db.kysely.selectFrom('messages').select('id').where('account_id', '=', a.id).execute()).toEqual(
      [],
    );
  });
});
